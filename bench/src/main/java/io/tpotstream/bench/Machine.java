package io.tpotstream.bench;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** The machine the figures come from: cores, memory, JDK, and how busy it is. */
public final class Machine {
  private Machine() {}

  /** One line: cores, memory, JDK, OS. */
  public static String describe() {
    OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    return String.format(
        Locale.ROOT,
        "%d cores (%s), %.1f GB memory, %s %s (%s), %s %s",
        Runtime.getRuntime().availableProcessors(),
        cpuModel(),
        os.getTotalMemorySize() / 1e9,
        System.getProperty("java.vm.name"),
        System.getProperty("java.runtime.version"),
        System.getProperty("java.vendor"),
        System.getProperty("os.name"),
        System.getProperty("os.version"));
  }

  /** The 1, 5 and 15 minute load averages (Linux), else the 1 minute one. */
  public static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return parts[0] + " " + parts[1] + " " + parts[2];
    } catch (IOException | RuntimeException e) {
      return String.format(
          Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
  }

  private static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: the model stays unknown
    }
    return "unknown CPU";
  }
}

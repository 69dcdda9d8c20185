package io.tpotstream.bench.jvm;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * This JVM's own costs: process CPU time (OS bean), CPU per thread (ThreadMXBean, sampled so that
 * threads that end are still counted), garbage collection, and the heap after a full GC.
 */
public final class ProcessMeter implements AutoCloseable {
  private final OperatingSystemMXBean os =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final Map<Long, String> names = new HashMap<>();
  private final Map<Long, Long> cpuByThread = new HashMap<>();
  private final Map<Long, Long> cpuAtStart = new HashMap<>();
  private final long startCpuNs;
  private final long startNs;
  private final long startGcCount;
  private final long startGcMs;
  private final Map<String, Long> internalsAtStart = jvmInternals();
  private final Thread sampler;
  private volatile boolean running = true;

  private ProcessMeter() {
    startCpuNs = os.getProcessCpuTime();
    startNs = System.nanoTime();
    startGcCount = gcCount();
    startGcMs = gcMillis();
    sampleThreads(cpuAtStart);
    sampler = new Thread(this::loop, "bench-process-meter");
    sampler.setDaemon(true);
  }

  /** Starts measuring from now. */
  public static ProcessMeter start() {
    ProcessMeter meter = new ProcessMeter();
    meter.sampler.start();
    return meter;
  }

  private void loop() {
    while (running) {
      synchronized (cpuByThread) {
        sampleThreads(cpuByThread);
      }
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void sampleThreads(Map<Long, Long> into) {
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info == null) {
        continue;
      }
      long cpu = threads.getThreadCpuTime(info.getThreadId());
      if (cpu >= 0) {
        into.put(info.getThreadId(), cpu);
        names.putIfAbsent(info.getThreadId(), info.getThreadName());
      }
    }
  }

  /** The costs since start. */
  public Costs costs() {
    Map<String, Long> byGroup = new TreeMap<>();
    synchronized (cpuByThread) {
      sampleThreads(cpuByThread);
      cpuByThread.forEach(
          (id, cpu) ->
              byGroup.merge(
                  group(names.get(id)), cpu - cpuAtStart.getOrDefault(id, 0L), Long::sum));
    }
    jvmInternals()
        .forEach((k, v) -> byGroup.merge(k, v - internalsAtStart.getOrDefault(k, 0L), Long::sum));
    Map<String, Long> top = new LinkedHashMap<>();
    byGroup.entrySet().stream()
        .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
        .limit(8)
        .forEach(e -> top.put(e.getKey(), e.getValue() / 1_000_000));
    return new Costs(
        os.getProcessCpuTime() - startCpuNs,
        System.nanoTime() - startNs,
        Runtime.getRuntime().availableProcessors(),
        gcCount() - startGcCount,
        gcMillis() - startGcMs,
        top);
  }

  /**
   * What this JVM spent.
   *
   * @param cpuNs process CPU time
   * @param wallNs wall time
   * @param cores available processors
   * @param gcCount collections
   * @param gcMs time in collections (summed over collectors; concurrent ones overlap the run)
   * @param cpuMsByThreadGroup CPU ms of the busiest thread groups (names without their number)
   */
  public record Costs(
      long cpuNs,
      long wallNs,
      int cores,
      long gcCount,
      long gcMs,
      Map<String, Long> cpuMsByThreadGroup) {
    /** Cores kept busy on average. */
    public double coresUsed() {
      return cpuNs / (double) wallNs;
    }
  }

  /** This process's CPU time so far, in ns. */
  public static long processCpuNs() {
    return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /**
   * Bytes this process has read so far through read calls, from files, sockets and its own jars
   * alike ({@code rchar} in {@code /proc/self/io}); 0 where there is no such file.
   */
  public static long bytesRead() {
    try {
      for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/io"))) {
        if (line.startsWith("rchar:")) {
          return Long.parseLong(line.substring("rchar:".length()).trim());
        }
      }
    } catch (java.io.IOException | RuntimeException e) {
      return 0;
    }
    return 0;
  }

  /**
   * This process's maximum resident size so far ({@code VmHWM} in {@code /proc/self/status}, what
   * GNU time's {@code %M} shows), in KiB; 0 where there is no such file.
   */
  public static long maxResidentKb() {
    try {
      for (String line :
          java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (java.io.IOException | RuntimeException e) {
      return 0;
    }
    return 0;
  }

  /** Heap in use right after a full collection, in bytes. */
  public static long heapAfterGc() {
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /**
   * CPU ns of the JVM's own threads that ThreadMXBean does not list (JIT compilers, garbage
   * collectors, the VM thread), from {@code /proc/self/task} (Linux; empty elsewhere).
   */
  static Map<String, Long> jvmInternals() {
    Map<String, Long> out = new TreeMap<>();
    java.nio.file.Path tasks = java.nio.file.Path.of("/proc/self/task");
    if (!java.nio.file.Files.isDirectory(tasks)) {
      return out;
    }
    try (var dirs = java.nio.file.Files.list(tasks)) {
      for (java.nio.file.Path task : (Iterable<java.nio.file.Path>) dirs::iterator) {
        try {
          String comm = java.nio.file.Files.readString(task.resolve("comm")).trim();
          String kind =
              comm.contains("CompilerThre")
                  ? "jvm: JIT compilers"
                  : comm.startsWith("Z")
                          || comm.startsWith("G1 ")
                          || comm.startsWith("GC Thread")
                          || comm.contains("GC")
                      ? "jvm: garbage collector"
                      : comm.startsWith("VM ") ? "jvm: VM thread" : null;
          if (kind == null) {
            continue;
          }
          String stat = java.nio.file.Files.readString(task.resolve("stat"));
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          // fields 14 and 15 (utime, stime) are at 11 and 12 after the state field, in ticks
          long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
          out.merge(kind, ticks * 10_000_000L, Long::sum);
        } catch (java.io.IOException | RuntimeException e) {
          // the thread ended while being read
        }
      }
    } catch (java.io.IOException e) {
      return out;
    }
    return out;
  }

  private static String group(String name) {
    return name == null ? "?" : name.replaceAll("[-#]?\\d+$", "").replaceAll("-\\d+-", "-N-");
  }

  private static long gcCount() {
    List<GarbageCollectorMXBean> beans = ManagementFactory.getGarbageCollectorMXBeans();
    return beans.stream().mapToLong(GarbageCollectorMXBean::getCollectionCount).sum();
  }

  private static long gcMillis() {
    List<GarbageCollectorMXBean> beans = ManagementFactory.getGarbageCollectorMXBeans();
    return beans.stream().mapToLong(GarbageCollectorMXBean::getCollectionTime).sum();
  }

  @Override
  public void close() {
    running = false;
    sampler.interrupt();
  }
}

package io.tpotstream.app;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import javax.management.ObjectName;

/**
 * {@code --gc-log}: this JVM's garbage collections and safepoints (every stop-the-world pause, with
 * its cause and length) logged to a file from the moment the command starts, through the JDK's
 * unified logging ({@code jcmd VM.log}), so that it works the same under {@code ./tpot} and in the
 * image without another JVM option.
 */
public final class JvmLog {
  public static final String WHAT = "gc*=info,safepoint=info";

  private JvmLog() {}

  /** Starts logging to {@code file}; says where on stderr. */
  public static void enable(Path file) {
    Path target = file.toAbsolutePath();
    try {
      ObjectName dcmd = new ObjectName("com.sun.management:type=DiagnosticCommand");
      String[] args = {"output=" + target, "what=" + WHAT, "decorators=time,uptime,level,tags"};
      ManagementFactory.getPlatformMBeanServer()
          .invoke(dcmd, "vmLog", new Object[] {args}, new String[] {String[].class.getName()});
    } catch (Exception e) {
      throw new IllegalArgumentException(
          "cannot start the GC log in "
              + target
              + " ("
              + e.getMessage()
              + "): check that the directory exists and is writable, or run java with"
              + " -Xlog:"
              + WHAT
              + ":file="
              + target,
          e);
    }
    System.err.println("tpot: GC and safepoint log in " + target);
  }
}

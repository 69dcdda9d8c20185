package io.tpotstream.producer.load;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * Whether the JIT has settled: the JVM's compilers spent less than {@value #QUIET_MS} ms compiling
 * in each of the last two one-second checks (the time spent compiling is what a warm-up waits out:
 * until then the measured code runs partly interpreted or less optimised, and the compiler threads
 * take CPU from the event loops).
 */
public final class JitWatch {
  static final long QUIET_MS = 50;

  private final CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
  private final boolean supported =
      compiler != null && compiler.isCompilationTimeMonitoringSupported();
  private long lastMs = supported ? compiler.getTotalCompilationTime() : 0;
  private int quietChecks;

  /** Called once a second; true once the JIT has been quiet for two checks in a row. */
  public boolean check() {
    if (!supported) {
      return true;
    }
    long now = compiler.getTotalCompilationTime();
    quietChecks = now - lastMs < QUIET_MS ? quietChecks + 1 : 0;
    lastMs = now;
    return quietChecks >= 2;
  }
}

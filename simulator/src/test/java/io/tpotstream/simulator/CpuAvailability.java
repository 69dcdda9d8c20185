package io.tpotstream.simulator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * How much CPU this JVM gets right now: one thread per core spins and counts the time it was not
 * running (any gap over 50 µs between two clock reads). Timing tests consult it to tell a machine
 * too busy to judge pacing from a pacing bug.
 */
final class CpuAvailability {
  private static final long PREEMPTION_NS = 50_000;

  private CpuAvailability() {}

  /**
   * The share (0 to 1) of {@code window} during which the spinning threads were descheduled, the
   * worst thread's.
   */
  static double lostShare(Duration window) {
    int cores = Runtime.getRuntime().availableProcessors();
    List<CompletableFuture<Double>> spinners = new ArrayList<>();
    for (int i = 0; i < cores; i++) {
      spinners.add(CompletableFuture.supplyAsync(() -> spin(window), CpuAvailability::daemon));
    }
    return spinners.stream().mapToDouble(CompletableFuture::join).max().orElse(0);
  }

  private static void daemon(Runnable task) {
    Thread thread = new Thread(task, "cpu-availability");
    thread.setDaemon(true);
    thread.start();
  }

  private static double spin(Duration window) {
    long end = System.nanoTime() + window.toNanos();
    long last = System.nanoTime();
    long lostNs = 0;
    while (last < end) {
      long now = System.nanoTime();
      if (now - last > PREEMPTION_NS) {
        lostNs += now - last;
      }
      last = now;
    }
    return lostNs / (double) window.toNanos();
  }
}

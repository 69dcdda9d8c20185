package io.tpotstream.simulator.pacing;

import io.netty.util.concurrent.EventExecutor;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Opt-in real-time scheduling ({@code SCHED_FIFO}, priority 1) for the simulator's own event-loop
 * threads, when Linux allows it ({@code CAP_SYS_NICE}); no other thread or process is touched, and
 * nothing needs it: where it is not allowed the loops stay at normal priority, which is the default
 * and what the simulator's pacing is built and measured for. The simulator stands in for a server
 * on another machine; on one shared machine a client that takes the CPUs (a JVM compiling its code,
 * a build) would otherwise delay the loop's wake-up at a chunk's due instant by a scheduler slice,
 * several ms. A real-time loop is woken at once, and it asks little: it sleeps between chunks.
 *
 * <p>So that an overloaded simulator never takes the machine from its clients, a guard thread
 * samples each loop's CPU time every 100 ms and returns a loop that was busy more than {@value
 * #DEMOTE_ABOVE_PERCENT}% of the last second to normal scheduling, raising it again once it is
 * below {@value #RAISE_BELOW_PERCENT}%.
 *
 * <p>The priority is set with util-linux's {@code chrt} on each loop thread's Linux thread id (read
 * from {@code /proc/thread-self}); Java has no call for it.
 */
public final class LoopPriority implements AutoCloseable {
  static final int DEMOTE_ABOVE_PERCENT = 85;
  static final int RAISE_BELOW_PERCENT = 50;
  private static final long SAMPLE_MS = 100;
  private static final int WINDOW_SAMPLES = 10;
  private static final long QUIET_NOTES_NS = TimeUnit.SECONDS.toNanos(10);

  private final List<Loop> loops;
  private final String note;
  private final Thread guard;
  private volatile boolean running = true;

  private LoopPriority(List<Loop> loops, String note) {
    this.loops = loops;
    this.note = note;
    if (loops.isEmpty()) {
      guard = null;
    } else {
      guard = new Thread(this::watch, "simulator-priority-guard");
      guard.setDaemon(true);
      guard.start();
    }
  }

  /** Leaves every loop at normal priority. */
  public static LoopPriority normal(String why) {
    return new LoopPriority(List.of(), why);
  }

  /**
   * Raises every event loop of {@code vertx} to real-time priority, or leaves them all at normal
   * priority and says why in {@link #note()}. Call from a thread that is not one of those loops.
   */
  public static LoopPriority raise(Vertx vertx) {
    if (!Files.isSymbolicLink(Path.of("/proc/thread-self"))) {
      return normal("event loops at normal priority (real-time priority is set on Linux only)");
    }
    List<Loop> loops = new ArrayList<>();
    try {
      for (EventExecutor executor : ((VertxInternal) vertx).nettyEventLoopGroup()) {
        loops.add(executor.submit(Loop::ofCurrentThread).get(5, TimeUnit.SECONDS));
      }
    } catch (Exception e) {
      return normal(
          "event loops at normal priority (their thread ids could not be read: " + e + ")");
    }
    for (Loop loop : loops) {
      String failure = chrt("--fifo", "1", loop.tid);
      if (failure != null) {
        loops.forEach(done -> chrt("--other", "0", done.tid));
        return normal(
            "event loops at normal priority (real-time priority is not allowed here, it needs"
                + " CAP_SYS_NICE: "
                + failure
                + ")");
      }
      loop.realtime = true;
    }
    return new LoopPriority(
        loops,
        loops.size()
            + " event loops at real-time priority (SCHED_FIFO 1; back to normal while one is busy"
            + " over "
            + DEMOTE_ABOVE_PERCENT
            + "% of a second)");
  }

  /** One line on what priority the loops have, for the start-up output. */
  public String note() {
    return note;
  }

  /** How many times a busy loop was put back to normal priority. */
  public int demotions() {
    return loops.stream().mapToInt(loop -> loop.demotions).sum();
  }

  private void watch() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long lastNoteNs = System.nanoTime() - QUIET_NOTES_NS;
    while (running) {
      try {
        Thread.sleep(SAMPLE_MS);
      } catch (InterruptedException e) {
        return;
      }
      long nowNs = System.nanoTime();
      for (Loop loop : loops) {
        int busyPercent = loop.sample(nowNs, threads.getThreadCpuTime(loop.javaId));
        if (busyPercent < 0) {
          continue;
        }
        if (loop.realtime && busyPercent > DEMOTE_ABOVE_PERCENT) {
          if (chrt("--other", "0", loop.tid) == null) {
            loop.realtime = false;
            loop.demotions++;
            if (nowNs - lastNoteNs > QUIET_NOTES_NS) {
              lastNoteNs = nowNs;
              System.err.println(
                  "tpot simulate: event loop "
                      + loop.name
                      + " was busy "
                      + busyPercent
                      + "% of the last second: back to normal priority until it quiets down"
                      + " (the simulator is near its capacity; chunks may go out late)");
            }
          }
        } else if (!loop.realtime && busyPercent < RAISE_BELOW_PERCENT) {
          loop.realtime = chrt("--fifo", "1", loop.tid) == null;
        }
      }
    }
  }

  /** Runs {@code chrt}; null when it succeeded, else what went wrong, in one line. */
  private static String chrt(String policy, String priority, long tid) {
    ProcessBuilder builder =
        new ProcessBuilder("chrt", policy, "--pid", priority, Long.toString(tid))
            .redirectErrorStream(true);
    try {
      Process process = builder.start();
      String output =
          new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return "chrt did not answer within 5 s";
      }
      return process.exitValue() == 0 ? null : output.isEmpty() ? "chrt failed" : output;
    } catch (IOException e) {
      return "chrt (util-linux) could not be run: " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  /** Stops the guard; the loops keep their priority until Vert.x stops them. */
  @Override
  public void close() {
    running = false;
    if (guard != null) {
      guard.interrupt();
      try {
        guard.join(TimeUnit.SECONDS.toMillis(5));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** One event-loop thread: its ids and its last second of CPU samples. */
  private static final class Loop {
    final long javaId;
    final long tid;
    final String name;
    final long[] cpuNs = new long[WINDOW_SAMPLES + 1];
    final long[] atNs = new long[WINDOW_SAMPLES + 1];
    int samples;
    volatile boolean realtime;
    volatile int demotions;

    private Loop(long javaId, long tid, String name) {
      this.javaId = javaId;
      this.tid = tid;
      this.name = name;
    }

    /** On the loop's own thread: /proc/thread-self links to {@code <pid>/task/<tid>}. */
    static Loop ofCurrentThread() throws IOException {
      Thread thread = Thread.currentThread();
      String link = Files.readSymbolicLink(Path.of("/proc/thread-self")).toString();
      long tid = Long.parseLong(link.substring(link.lastIndexOf('/') + 1));
      return new Loop(thread.getId(), tid, thread.getName());
    }

    /** Records a sample; the busy share of the window, in percent, once the window is full. */
    int sample(long nowNs, long threadCpuNs) {
      int slot = samples % cpuNs.length;
      cpuNs[slot] = threadCpuNs;
      atNs[slot] = nowNs;
      samples++;
      if (samples < cpuNs.length || threadCpuNs < 0) {
        return -1;
      }
      int oldest = samples % cpuNs.length;
      long wallNs = nowNs - atNs[oldest];
      return wallNs <= 0 ? -1 : (int) (100 * (threadCpuNs - cpuNs[oldest]) / wallNs);
    }
  }
}

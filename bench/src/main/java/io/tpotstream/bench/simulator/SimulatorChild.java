package io.tpotstream.bench.simulator;

import io.tpotstream.bench.jvm.ChildJvm;
import io.tpotstream.bench.jvm.ProcessMeter;
import io.tpotstream.common.Json;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.simulator.profile.Profiles;
import io.tpotstream.simulator.truth.TruthReport;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * The simulator in a JVM of its own, started cold as {@code tpot simulate} starts it (its warm-up
 * included): {@code <spec JSON>}. Reports {@code ready} with its port and notes; then on each stdin
 * line {@code truth} reports its ground truth and the process CPU since the last report, on {@code
 * reset} forgets the truth, and at the end of its input closes (flushing the truth file) and exits.
 */
public final class SimulatorChild {
  private SimulatorChild() {}

  /**
   * How to start it.
   *
   * @param seed the run seed
   * @param truthFile the truth file, or null
   * @param profilesJson extra profiles ({@code {"models": {...}}}), or null for the built-ins
   * @param realtimeLoops as {@code tpot simulate --realtime}
   */
  public record Spec(long seed, String truthFile, String profilesJson, boolean realtimeLoops) {}

  /** Where it listens and what it says about its pacing. */
  public record Ready(int port, List<String> notes) {}

  /**
   * Its ground truth; since the previous report or reset its process CPU, its event loops' CPU and
   * the wall time; and how many times a busy event loop lost its real-time priority so far.
   */
  public record Truth(
      TruthReport truth, long cpuNs, long loopCpuNs, long wallNs, int loopDemotions) {}

  public static void main(String[] args) throws Exception {
    Spec spec = Json.MAPPER.readValue(args[0], Spec.class);
    SimulatorConfig config =
        SimulatorConfig.defaults()
            .withPort(0)
            .withSeed(spec.seed())
            .withRealtimeLoops(spec.realtimeLoops())
            .withRequestsKept(0);
    if (spec.truthFile() != null) {
      config = config.withTruthFile(Path.of(spec.truthFile()));
    }
    if (spec.profilesJson() != null) {
      config = config.withProfiles(Profiles.parse(spec.profilesJson()));
    }
    try (Simulator simulator = Simulator.start(config)) {
      ChildJvm.report("ready", new Ready(simulator.port(), simulator.notes()));
      BufferedReader stdin =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      long cpuNs = ProcessMeter.processCpuNs();
      long loopCpuNs = loopCpuNs();
      long wallNs = System.nanoTime();
      String line;
      while ((line = stdin.readLine()) != null) {
        if (line.equals("reset")) {
          simulator.truth().reset();
          cpuNs = ProcessMeter.processCpuNs();
          loopCpuNs = loopCpuNs();
          wallNs = System.nanoTime();
          ChildJvm.report("reset", List.of());
        } else if (line.equals("truth")) {
          long nowCpuNs = ProcessMeter.processCpuNs();
          long nowLoopCpuNs = loopCpuNs();
          long nowNs = System.nanoTime();
          ChildJvm.report(
              "truth",
              new Truth(
                  simulator.truth().report(),
                  nowCpuNs - cpuNs,
                  nowLoopCpuNs - loopCpuNs,
                  nowNs - wallNs,
                  simulator.loopDemotions()));
          cpuNs = nowCpuNs;
          loopCpuNs = nowLoopCpuNs;
          wallNs = nowNs;
        }
      }
    }
    System.exit(0);
  }

  /** The CPU time of the simulator's event loops (Vert.x's event-loop threads) so far, in ns. */
  private static long loopCpuNs() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long sum = 0;
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null && info.getThreadName().startsWith("vert.x-eventloop-thread")) {
        sum += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
      }
    }
    return sum;
  }
}

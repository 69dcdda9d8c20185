package io.tpotstream.bench.simulator;

import io.tpotstream.bench.BenchEnv;
import io.tpotstream.bench.BenchReport;
import io.tpotstream.bench.jvm.ChildJvm;
import io.tpotstream.common.Json;
import io.tpotstream.simulator.truth.Pacing;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * S2: how many chunks per second the simulator paces with a p99 pacing error of at most 0.2 ms, the
 * client in another process. The simulator (cold start, warm-up included) and a Vert.x load client
 * each run in a JVM of their own; the client keeps N streams going (log-normal gaps of mean 20 ms,
 * so 50 chunks/s while a stream streams; 100-token responses, each followed at once by the next
 * request), N rising step by step. After a settling time, each step measures a window: the
 * simulator's own record of that window gives the chunks it sent and its pacing error, the client's
 * count says they arrived. Both JVMs run at normal priority, the simulator's event loops too (no
 * real-time priority, no nice): the figure is what any user gets.
 */
public final class PacingCapacity {
  static final String MODEL = "bench-capacity";
  static final int MAX_TOKENS = 100;
  static final String PROFILE =
      "{\"models\":{\""
          + MODEL
          + "\":{\"ttft\":{\"type\":\"lognormal\",\"medianMs\":150,\"sigma\":0.5,\"minMs\":20,"
          + "\"maxMs\":1000},\"gap\":{\"type\":\"lognormal\",\"medianMs\":17.65,\"sigma\":0.5,"
          + "\"minMs\":1,\"maxMs\":200}}}}";

  private PacingCapacity() {}

  /**
   * One step: the streams asked for, what the simulator sent and how on time, the client's view.
   */
  public record Step(
      int streams,
      long chunksSent,
      double seconds,
      Pacing pacing,
      double simulatorCores,
      double loopMicrosPerChunk,
      LoadClientChild.Count client,
      int loopDemotions) {

    double chunksPerSecond() {
      return chunksSent / seconds;
    }
  }

  /** A way of running the simulator, compared side by side. */
  private record Variant(String label, List<String> jvmOptions) {}

  public static void run(BenchEnv env, BenchReport report) {
    List<Integer> streams =
        env.pick(List.of(250, 500, 750, 1_000, 1_500, 2_000), List.of(250, 500, 1_000, 1_500));
    Duration settle = env.pick(Duration.ofSeconds(5), Duration.ofSeconds(3));
    Duration window = env.pick(Duration.ofSeconds(10), Duration.ofSeconds(4));
    report.section(
        "S2",
        "simulator pacing capacity (client in another JVM; N streams of 100-token responses,"
            + " log-normal gaps of mean 20 ms; after an unreported warm-up step each step settles "
            + settle.toSeconds()
            + " s, then measures "
            + window.toSeconds()
            + " s; limit: pacing error p99 0.2 ms; both JVMs at normal priority)");
    List<Variant> variants =
        List.of(
            new Variant("batched (30 µs, default)", List.of()),
            new Variant("a wake-up per chunk", List.of("-Dtpot.simulator.batchNs=0")));
    for (Variant variant : variants) {
      List<String> options = new ArrayList<>(env.childJvmOptions());
      options.addAll(variant.jvmOptions());
      Step best = null;
      for (Step step : steps(env, options, streams, settle, window)) {
        report.figure(
            variant.label() + ", " + step.streams() + " streams",
            String.format(
                Locale.ROOT,
                "sent %s; pacing error p50 / p99 / max %s / %s / %s ms; event loops %.1f µs CPU"
                    + " per chunk, simulator %.2f cores, client %.2f cores; client got %s"
                    + " chunks, sent %s%s",
                BenchReport.perSecond(step.chunksPerSecond(), "chunks"),
                step.pacing().p50Ms(),
                step.pacing().p99Ms(),
                step.pacing().maxMs(),
                step.loopMicrosPerChunk(),
                step.simulatorCores(),
                step.client().cpuNs() / (double) step.client().wallNs(),
                BenchReport.count(step.client().chunks()),
                BenchReport.count(step.chunksSent()),
                step.loopDemotions() > 0
                    ? "; busy loops lost real-time priority " + step.loopDemotions() + " times"
                    : ""));
        if (step.pacing().withinLimit()
            && step.client().failed() == 0
            && (best == null || step.chunksPerSecond() > best.chunksPerSecond())) {
          best = step;
        }
      }
      report.headline(
          variant.label() + ": chunks/s paced with p99 error <= 0.2 ms",
          best == null
              ? "none of the steps (from " + streams.get(0) + " streams)"
              : BenchReport.perSecond(best.chunksPerSecond(), "chunks")
                  + " ("
                  + best.streams()
                  + " streams; p99 "
                  + best.pacing().p99Ms()
                  + " ms)");
    }
  }

  /** Runs the steps against one cold simulator and one load client, in that order. */
  public static List<Step> steps(
      BenchEnv env,
      List<String> simulatorOptions,
      List<Integer> streams,
      Duration settle,
      Duration window) {
    SimulatorChild.Spec spec = new SimulatorChild.Spec(7, null, PROFILE, false);
    try (ChildJvm simulator =
        ChildJvm.startInOwnSession(
            SimulatorChild.class,
            simulatorOptions,
            List.of(Json.MAPPER.writeValueAsString(spec)),
            env.workDir().resolve("s2-simulator.log"))) {
      int port =
          Json.MAPPER
              .treeToValue(
                  simulator.await("ready", Duration.ofSeconds(60)).json(),
                  SimulatorChild.Ready.class)
              .port();
      List<Step> steps = new ArrayList<>();
      try (ChildJvm client =
          ChildJvm.start(
              LoadClientChild.class,
              env.childJvmOptions(),
              List.of(Integer.toString(port), MODEL, Integer.toString(MAX_TOKENS)),
              env.workDir().resolve("s2-client.log"))) {
        // a first step that is not reported: both JVMs compile their hot paths
        client.send("streams " + streams.get(streams.size() / 2));
        Thread.sleep(settle.multipliedBy(2).toMillis());
        for (int n : streams) {
          client.send("streams " + n);
          Thread.sleep(settle.toMillis());
          simulator.send("reset");
          simulator.await("reset", Duration.ofSeconds(30));
          client.send("count");
          client.await("count", Duration.ofSeconds(30));
          Thread.sleep(window.toMillis());
          simulator.send("truth");
          client.send("count");
          SimulatorChild.Truth truth =
              Json.MAPPER.treeToValue(
                  simulator.await("truth", Duration.ofSeconds(30)).json(),
                  SimulatorChild.Truth.class);
          LoadClientChild.Count seen =
              Json.MAPPER.treeToValue(
                  client.await("count", Duration.ofSeconds(30)).json(),
                  LoadClientChild.Count.class);
          Pacing pacing = truth.truth().pacing();
          steps.add(
              new Step(
                  n,
                  pacing.chunks(),
                  truth.wallNs() / 1e9,
                  pacing,
                  truth.cpuNs() / (double) truth.wallNs(),
                  pacing.chunks() == 0 ? 0 : truth.loopCpuNs() / 1000.0 / pacing.chunks(),
                  seen,
                  truth.loopDemotions()));
        }
        client.closeInput();
        client.waitFor(Duration.ofSeconds(60));
      }
      simulator.closeInput();
      simulator.waitFor(Duration.ofSeconds(60));
      return steps;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}

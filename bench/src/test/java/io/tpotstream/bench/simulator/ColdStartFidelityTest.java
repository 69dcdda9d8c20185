package io.tpotstream.bench.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tpotstream.bench.BenchEnv;
import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.simulator.pacing.LoopTimer;
import io.tpotstream.simulator.plan.Planner;
import io.tpotstream.simulator.plan.ResponsePlan;
import io.tpotstream.simulator.profile.Profiles;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cold simulator (a fresh JVM, warm-up included) driven by two unrelated clients, the seed
 * article's Python aiohttp script and the project's producer (a fresh JVM too), each for 20
 * requests of model-a, 200 tokens, 4 at a time. What is judged is the simulator's own record, its
 * truth file. Exactly, on any machine: every chunk's intended gap is the profile's draw for that
 * request, and every actual gap is that draw plus the chunk's own pacing error, never more than the
 * 0.2 ms early (the timer's lead and batch), so no chunk is ever sent in a catch-up burst; and the
 * 3,980 drawn gaps follow the profile with the tolerances of issue 20's check (median within 10% of
 * 1.60 ms, p99 within 20% of 12.88 ms). How close the sends came on this machine depends on what
 * else runs on its cores: a timed check in the suite failed whenever another JVM was compiling, so
 * the sent gaps against the profile are judged by the S1 benchmark, as the project's rule for
 * timing has it (BENCHMARKS.md, S1).
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class ColdStartFidelityTest {
  @Test
  void aColdSimulatorDrivenByThePythonAiohttpClientSendsModelAsGapsFromTheFirstRequest(
      @TempDir Path dir) {
    Optional<String> python = AiohttpClient.python();
    assumeTrue(python.isPresent(), AiohttpClient.MISSING);

    ColdStart.Run run = ColdStart.withPython(env("unused:9092", dir), python.get());

    // the script sends no X-Request-Id: the simulator names them sim-1 to sim-20
    assertEquals(
        new TreeSet<>(IntStream.rangeClosed(1, 20).mapToObj(i -> "sim-" + i).toList()),
        run.truth().requests().keySet());
    assertEquals(20, run.completed());
    assertEquals(Collections.nCopies(20, 200), run.chunks());
    assertFollowsModelA(run);
  }

  @Test
  void aColdSimulatorDrivenByTheProducerSendsModelAsGapsFromTheFirstRequest(
      TestKafka kafka, @TempDir Path dir) {
    ColdStart.Run run = ColdStart.withProducer(env(kafka.bootstrapServers(), dir));

    assertEquals(20, run.truth().requests().size());
    assertEquals(20, run.completed());
    assertFollowsModelA(run);
  }

  private static BenchEnv env(String bootstrap, Path dir) {
    return new BenchEnv(bootstrap, true, dir, List.of());
  }

  private static void assertFollowsModelA(ColdStart.Run run) {
    Map<String, List<TruthLines.Chunk>> requests = run.truth().requests();
    for (Map.Entry<String, List<TruthLines.Chunk>> request : requests.entrySet()) {
      String id = request.getKey();
      List<TruthLines.Chunk> chunks = request.getValue();
      ResponsePlan plan =
          Planner.plan(
              Profiles.builtIns().get(ColdStart.MODEL),
              ColdStart.SEED,
              ColdStart.MODEL,
              id,
              200,
              0);
      assertEquals(200, chunks.size(), id);
      for (int seq = 0; seq < 200; seq++) {
        TruthLines.Chunk chunk = chunks.get(seq);
        assertEquals(seq, chunk.seq(), id);
        if (seq == 0) {
          // the TTFT also has the prefill of the prompt tokens the prefix cache did not hold: a
          // whole number of tokens at the profile's cost each, none more than the prompt has
          var profile = Profiles.builtIns().get(ColdStart.MODEL);
          long prefillNs = chunk.intendedNs() - plan.waitNs(0);
          assertTrue(
              prefillNs >= 0
                  && prefillNs % profile.prefillNs(1) == 0
                  && prefillNs <= profile.prefillNs(4096),
              id + " seq 0: prefill " + prefillNs + " ns");
        } else {
          assertEquals(plan.waitNs(seq), chunk.intendedNs(), id + " seq " + seq);
        }
        assertTrue(chunk.pacingErrorNs() >= -LoopTimer.MAX_EARLY_NS, id + " seq " + seq + " early");
        if (seq > 0) {
          long gapNs = chunk.sentNs() - chunks.get(seq - 1).sentNs();
          assertEquals(chunk.intendedNs() + chunk.pacingErrorNs(), gapNs, id + " seq " + seq);
        }
      }
    }
    String pacing = "; pacing error " + run.pacing();

    // against the profile, as issue 20 checks it: what the simulator drew (the seed decides it, so
    // this holds on any machine); how close the sends came to the draws on this machine is the
    // pacing error, recorded per chunk above and judged by the S1 benchmark (./tpot bench --only
    // S1)
    LatencyHistogram drawn = run.truth().intendedGaps();
    assertEquals(20 * 199, drawn.count());
    assertEquals(20 * 199, run.truth().gaps().count());
    String all =
        run.client()
            + ": drawn "
            + drawn.summary()
            + ", sent "
            + run.truth().gaps().summary()
            + pacing;
    assertTrue(Math.abs(drawn.percentileMicros(50) - 1_600) <= 160, all);
    assertTrue(Math.abs(drawn.percentileMicros(99) - 12_880) <= 2_576, all);
  }
}

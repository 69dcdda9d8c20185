package io.tpotstream.bench.simulator;

import io.tpotstream.bench.BenchEnv;
import io.tpotstream.bench.BenchReport;
import io.tpotstream.bench.jvm.ChildJvm;
import io.tpotstream.bench.jvm.ProducerChild;
import io.tpotstream.bench.workload.BenchTopics;
import io.tpotstream.common.Json;
import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.simulator.truth.Pacing;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * S1: the simulator from a cold start (a fresh JVM, as {@code tpot simulate} starts), driven once
 * by a third-party client (the seed article's Python aiohttp script) and once by the project's
 * producer (a fresh JVM, as {@code tpot produce} starts): 20 requests of {@code model-a}, 200
 * tokens each, 4 at a time. What counts is the simulator's own record (its truth file): its median
 * gap should be within 10% of the profile's 1.60 ms and its p99 within 20% of 12.88 ms, whoever the
 * client.
 */
public final class ColdStart {
  static final String MODEL = "model-a";
  static final int REQUESTS = 20;
  static final int CONCURRENCY = 4;
  static final int MAX_TOKENS = 200;
  static final long SEED = 42;
  static final long PROFILE_P50_MICROS = 1_600;
  static final long PROFILE_P99_MICROS = 12_880;

  private ColdStart() {}

  /** One client's run: what the simulator recorded and what the client received. */
  public record Run(
      String client, TruthLines truth, Pacing pacing, int completed, List<Integer> chunks) {

    /** The median gap of the simulator's record within 10% of 1.60 ms, its p99 within 20%. */
    public boolean meetsTheCheck() {
      LatencyHistogram gaps = truth.gaps();
      return Math.abs(gaps.percentileMicros(50) - PROFILE_P50_MICROS) <= PROFILE_P50_MICROS / 10
          && Math.abs(gaps.percentileMicros(99) - PROFILE_P99_MICROS) <= PROFILE_P99_MICROS / 5;
    }
  }

  public static void run(BenchEnv env, BenchReport report) {
    report.section(
        "S1",
        "the simulator from a cold start, driven by two clients ("
            + REQUESTS
            + " requests of "
            + MODEL
            + " x "
            + MAX_TOKENS
            + " tokens, "
            + CONCURRENCY
            + " at a time, seed "
            + SEED
            + "; its own record against the profile's 1.600 / 12.880 ms)");
    Optional<String> python = AiohttpClient.python();
    if (python.isPresent()) {
      print(report, withPython(env, python.get()));
    } else {
      report.note(AiohttpClient.MISSING);
    }
    print(report, withProducer(env));
  }

  private static void print(BenchReport report, Run run) {
    LatencyHistogram gaps = run.truth().gaps();
    LatencyHistogram intended = run.truth().intendedGaps();
    report.headline(
        run.client() + ": sent gaps p50 / p99",
        String.format(
            Locale.ROOT,
            "%.3f / %.3f ms (%s gaps; drawn %.3f / %.3f ms) %s",
            gaps.percentileMicros(50) / 1000.0,
            gaps.percentileMicros(99) / 1000.0,
            BenchReport.count(gaps.count()),
            intended.percentileMicros(50) / 1000.0,
            intended.percentileMicros(99) / 1000.0,
            run.meetsTheCheck() ? "within 10% / 20%" : "OUTSIDE 10% / 20%"));
    report.headline(
        run.client() + ": pacing error p50 / p99 / max",
        run.pacing().p50Ms()
            + " / "
            + run.pacing().p99Ms()
            + " / "
            + run.pacing().maxMs()
            + " ms ("
            + BenchReport.count(run.pacing().chunks())
            + " chunks)");
    report.figure(
        run.client() + ": completed / content chunks",
        run.completed()
            + " requests / "
            + BenchReport.count(run.chunks().stream().mapToLong(Integer::longValue).sum())
            + " chunks received");
  }

  /** A cold simulator driven by the aiohttp script. */
  public static Run withPython(BenchEnv env, String python) {
    return drive(
        env,
        "python aiohttp",
        port -> {
          AiohttpClient.Result result =
              AiohttpClient.run(
                  python,
                  env.workDir(),
                  "http://127.0.0.1:" + port + "/v1",
                  MODEL,
                  REQUESTS,
                  CONCURRENCY,
                  MAX_TOKENS,
                  Duration.ofMinutes(2));
          return new ClientResult(result.completed(), result.chunks());
        });
  }

  /** A cold simulator driven by the producer in a cold JVM, publishing to the bench's broker. */
  public static Run withProducer(BenchEnv env) {
    return drive(
        env,
        "tpot producer",
        port -> {
          Map<String, String> keys = new LinkedHashMap<>();
          keys.put("base_url", "http://127.0.0.1:" + port + "/v1");
          keys.put("models", MODEL);
          keys.put("total_requests", Integer.toString(REQUESTS));
          keys.put("concurrency", Integer.toString(CONCURRENCY));
          keys.put("max_tokens", Integer.toString(MAX_TOKENS));
          // no warm-up requests: the simulator's first request is the run's first, as cold as
          // the Python client's
          keys.put("warmup", "0");
          try (ChildJvm producer =
              ProducerChild.start(
                  env.childJvmOptions(),
                  env.bootstrapServers(),
                  0,
                  List.of(new ProducerChild.RunSpec(BenchTopics.unique("bench-s1"), keys)),
                  env.workDir().resolve("s1-producer.log"))) {
            ProducerChild.Result result =
                Json.MAPPER.treeToValue(
                    producer.await("result", Duration.ofMinutes(2)).json(),
                    ProducerChild.Result.class);
            producer.waitFor(Duration.ofSeconds(60));
            return new ClientResult((int) result.completed(), List.of());
          }
        });
  }

  private record ClientResult(int completed, List<Integer> chunks) {}

  private interface Client {
    ClientResult drive(int port) throws Exception;
  }

  private static Run drive(BenchEnv env, String client, Client driver) {
    String name = client.replace(' ', '-');
    Path truthFile = env.workDir().resolve("s1-" + name + "-truth.jsonl");
    try {
      Files.deleteIfExists(truthFile);
      SimulatorChild.Spec spec = new SimulatorChild.Spec(SEED, truthFile.toString(), null, false);
      try (ChildJvm simulator =
          ChildJvm.startInOwnSession(
              SimulatorChild.class,
              env.childJvmOptions(),
              List.of(Json.MAPPER.writeValueAsString(spec)),
              env.workDir().resolve("s1-" + name + "-simulator.log"))) {
        SimulatorChild.Ready ready =
            Json.MAPPER.treeToValue(
                simulator.await("ready", Duration.ofSeconds(60)).json(),
                SimulatorChild.Ready.class);
        ClientResult result = driver.drive(ready.port());
        simulator.send("truth");
        SimulatorChild.Truth truth =
            Json.MAPPER.treeToValue(
                simulator.await("truth", Duration.ofSeconds(30)).json(),
                SimulatorChild.Truth.class);
        simulator.closeInput();
        simulator.waitFor(Duration.ofSeconds(60));
        return new Run(
            client,
            TruthLines.read(truthFile, MODEL),
            truth.truth().pacing(),
            result.completed(),
            result.chunks());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(client + " failed: " + e.getMessage(), e);
    }
  }
}

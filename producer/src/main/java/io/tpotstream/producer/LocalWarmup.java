package io.tpotstream.producer;

import io.tpotstream.producer.config.Durations;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.config.ProxySettings;
import io.tpotstream.producer.config.Warmup;
import io.tpotstream.producer.dialect.Dialect;
import io.tpotstream.producer.http.CallContext;
import io.tpotstream.producer.http.FailFast;
import io.tpotstream.producer.http.HttpClients;
import io.tpotstream.producer.load.JitWatch;
import io.tpotstream.producer.load.Lanes;
import io.tpotstream.producer.load.LoadRunner;
import io.tpotstream.producer.publish.AnchoredClock;
import io.tpotstream.producer.publish.Handoff;
import io.tpotstream.producer.publish.Recorder;
import io.tpotstream.producer.publish.Rehearsal;
import io.tpotstream.producer.workload.Sessions;
import io.tpotstream.producer.workload.Traffic;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.simulator.profile.Distribution;
import io.tpotstream.simulator.profile.ModelProfile;
import io.vertx.core.Vertx;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * The default warm-up ({@link Warmup#LOCAL}): before the first real request, the run's own path
 * (the HTTP client on the run's event loops, SSE framing, the dialect, recording, encoding) streams
 * from a simulator inside this process, serving the run's models in the run's API, until the JIT
 * has settled. The endpoint sees only the requests the user asked for; nothing reaches Kafka.
 */
final class LocalWarmup {
  /** The least time it lasts: the JIT needs some before it can be seen settling. */
  static final Duration MIN = Duration.ofSeconds(3);

  /** The most: a JIT that never settles (a busy machine) does not hold the run back longer. */
  static final Duration MAX = Duration.ofSeconds(30);

  /** Streams at once: enough to exercise the pool and every loop, few enough for two cores. */
  static final int STREAMS = 16;

  /** How it went: its length, the events it made, and whether the JIT had settled. */
  record Result(Duration took, long events, boolean jitSettled) {}

  private LocalWarmup() {}

  /** Warms the path of {@code config} on {@code vertx}'s event loops; returns when done. */
  static Result run(ProducerConfig config, Vertx vertx, int eventLoops) {
    long startNs = System.nanoTime();
    Map<String, ModelProfile> profiles = new LinkedHashMap<>();
    for (String model : config.models()) {
      // a chunk every 2 ms after 5 ms: many chunks per second, paced as a server paces them
      profiles.put(
          model, ModelProfile.of(new Distribution.Constant(5), new Distribution.Constant(2)));
    }
    SimulatorConfig simulator =
        SimulatorConfig.defaults()
            .withPort(0)
            .withProfiles(profiles)
            .withEventLoops(1)
            .withWarmupChunks(0)
            .withRequestsKept(16);
    try (Simulator server = Simulator.start(simulator)) {
      ProducerConfig loopback = against(config, server.baseUrl());
      Lanes lanes = deploy(vertx, eventLoops, loopback);
      Handoff handoff = new Handoff(1 << 16);
      Recorder recorder =
          new Recorder(
              loopback.runId(),
              "warmup",
              Recorder.SOURCE,
              loopback.labels(),
              AnchoredClock.start(),
              loopback.timeouts().firstToken(),
              loopback.timeouts().idle(),
              loopback.streamUrl().toString(),
              UnaryOperator.identity(),
              outcome -> {});
      try (Rehearsal publisher = new Rehearsal(handoff, recorder)) {
        LoadRunner load =
            new LoadRunner(
                new CallContext(
                    vertx, loopback, Dialect.of(loopback.api()), handoff, new FailFast(() -> {})),
                lanes,
                new Sessions(loopback.prompts().conversations(), loopback.models()));
        var done = load.start();
        JitWatch jit = new JitWatch();
        boolean settled = false;
        long minEnd = startNs + MIN.toNanos();
        long maxEnd = startNs + MAX.toNanos();
        while (System.nanoTime() < maxEnd) {
          Thread.sleep(1000);
          settled = jit.check();
          if (settled && System.nanoTime() >= minEnd) {
            break;
          }
        }
        load.stop(Duration.ZERO);
        done.get(30, TimeUnit.SECONDS);
        lanes.close();
        return new Result(
            Duration.ofNanos(System.nanoTime() - startNs), publisher.events(), settled);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while warming up", e);
    } catch (Exception e) {
      throw new IllegalStateException("the local warm-up failed: " + e, e);
    }
  }

  private static Lanes deploy(Vertx vertx, int eventLoops, ProducerConfig loopback)
      throws Exception {
    return Lanes.deploy(vertx, eventLoops, () -> HttpClients.create(vertx, loopback))
        .toCompletionStage()
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
  }

  /** The run's config aimed at {@code baseUrl}: closed loop, no end, no proxy, no warm-up. */
  static ProducerConfig against(ProducerConfig config, String baseUrl) {
    Traffic traffic =
        config.traffic() == null ? null : new Traffic(config.traffic().conversations(), null, null);
    return new ProducerConfig(
        URI.create(baseUrl + "/v1"),
        config.api(),
        config.apiKey(),
        config.models(),
        Math.min(STREAMS, config.concurrency() == null ? STREAMS : config.concurrency()),
        Integer.MAX_VALUE,
        config.maxTokens(),
        config.prompts(),
        config.timeouts(),
        null,
        config.arrival(),
        config.seed(),
        Durations.FOREVER,
        config.labels(),
        config.includeUsage(),
        config.continuousUsage(),
        config.headers(),
        config.extraBody(),
        "warmup",
        Duration.ZERO,
        ProxySettings.DIRECT,
        config.anthropicVersion(),
        traffic,
        Warmup.NONE);
  }
}

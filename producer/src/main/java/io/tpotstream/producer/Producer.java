package io.tpotstream.producer;

import io.tpotstream.common.Stages;
import io.tpotstream.common.slo.GoodputLimits;
import io.tpotstream.producer.config.ConfigDurations;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.dialect.Dialect;
import io.tpotstream.producer.engine.EngineScraper;
import io.tpotstream.producer.http.CallContext;
import io.tpotstream.producer.http.CallOutcome;
import io.tpotstream.producer.http.EndpointBackoff;
import io.tpotstream.producer.http.FailFast;
import io.tpotstream.producer.http.HttpClients;
import io.tpotstream.producer.load.Lanes;
import io.tpotstream.producer.load.LoadRunner;
import io.tpotstream.producer.load.StagedLoad;
import io.tpotstream.producer.publish.AnchoredClock;
import io.tpotstream.producer.publish.Handoff;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.producer.publish.OutagePolicy;
import io.tpotstream.producer.publish.PauseMeter;
import io.tpotstream.producer.publish.PublishException;
import io.tpotstream.producer.publish.Publisher;
import io.tpotstream.producer.publish.Recorder;
import io.tpotstream.producer.result.RequestsOut;
import io.tpotstream.producer.result.RunStats;
import io.tpotstream.producer.workload.Sessions;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the sampler in this JVM: streams chat completions per the config and publishes every token
 * arrival to Kafka. {@code tpot produce}, {@code tpot run} and the demo all start it here.
 *
 * <pre>{@code
 * ProducerRun run = Producer.start(config, KafkaSettings.of("127.0.0.1:9092"));
 * run.stopOnShutdown(Duration.ofSeconds(30));
 * RunResult result = run.result().join();
 * System.out.print(ResultTable.format(result));
 * }</pre>
 */
public final class Producer {
  /** Event loops: one per core (system property {@code tpot.producer.eventLoops} overrides). */
  static final int EVENT_LOOPS =
      Integer.getInteger(
          "tpot.producer.eventLoops", Math.max(1, Runtime.getRuntime().availableProcessors()));

  private static final Logger LOG = LoggerFactory.getLogger(Producer.class);

  private Producer() {}

  /**
   * Connects to Kafka (creating the topic if missing), sends the start heartbeats, and starts the
   * load. Returns once requests are under way.
   *
   * @throws PublishException when Kafka cannot be reached (the run never started)
   */
  public static ProducerRun start(ProducerConfig config, KafkaSettings kafka) {
    return start(config, kafka, Outputs.NONE);
  }

  /**
   * What a run writes besides Kafka: per-request records ({@code --requests-out}, null for none)
   * and the goodput limits judged per request (in the table and the records).
   */
  public record Outputs(Path requestsOut, GoodputLimits goodput) {
    public static final Outputs NONE = new Outputs(null, GoodputLimits.NONE);
  }

  /**
   * As {@link #start(ProducerConfig, KafkaSettings)}, writing {@code outputs} too. Each finished
   * request reaches the table and the records on the publisher thread ({@link Recorder}), never on
   * an event loop; the records are written by a thread of their own.
   */
  public static ProducerRun start(ProducerConfig config, KafkaSettings kafka, Outputs outputs) {
    return start(config, kafka, outputs, null);
  }

  /**
   * As {@link #start(ProducerConfig, KafkaSettings, Outputs)}, a local warm-up's requests going to
   * a server {@code warmupServers} starts (null: none, for a run whose warm-up is not local).
   *
   * @throws IllegalArgumentException when the warm-up is local and no server is given
   */
  public static ProducerRun start(
      ProducerConfig config,
      KafkaSettings kafka,
      Outputs outputs,
      WarmupServer.Starter warmupServers) {
    if (config.warmup().local() && warmupServers == null) {
      throw new IllegalArgumentException(
          "a local warm-up needs a server to stream from: pass a WarmupServer.Starter, or set"
              + " warmup to 0, 10s or 50req");
    }
    String producerId = newProducerId();
    AnchoredClock clock = AnchoredClock.start();
    PauseMeter pauseMeter = PauseMeter.start();
    Vertx vertx =
        Vertx.vertx(
            new VertxOptions().setEventLoopPoolSize(EVENT_LOOPS).setPreferNativeTransport(true));
    String transport = vertx.isNativeTransportEnabled() ? "epoll" : "nio";
    RequestsOut requestsOut;
    try {
      requestsOut =
          outputs.requestsOut() == null
              ? null
              : RequestsOut.open(outputs.requestsOut(), outputs.goodput());
    } catch (RuntimeException e) {
      vertx.close();
      pauseMeter.close();
      throw e;
    }
    Lanes lanes;
    try {
      lanes =
          Lanes.deploy(vertx, EVENT_LOOPS, () -> HttpClients.create(vertx, config))
              .toCompletionStage()
              .toCompletableFuture()
              .get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      vertx.close();
      pauseMeter.close();
      closeQuietly(requestsOut);
      throw new IllegalStateException("cannot start the HTTP event loops", e);
    }
    RunStats stats = new RunStats(config.models(), outputs.goodput());
    boolean staged = config.sweep() != null;
    Consumer<CallOutcome> finished =
        outcome -> {
          if (staged) {
            stats.stage(outcome.labels().get(Stages.LABEL)).accept(outcome);
          } else {
            stats.record(outcome);
          }
          if (requestsOut != null) {
            requestsOut.finished(
                outcome.requestId(),
                config.runId(),
                outcome.model(),
                outcome.labels(),
                clock.tsMs(outcome.startNs()),
                outcome);
          }
        };
    Recorder recorder =
        new Recorder(
            config.runId(),
            producerId,
            Recorder.SOURCE,
            config.labels(),
            clock,
            config.timeouts().firstToken(),
            config.timeouts().idle(),
            config.secrets().url(config.streamUrl()),
            config.secrets()::redact,
            finished);
    Handoff handoff = new Handoff(kafka.queueCapacity());
    Publisher publisher;
    try {
      publisher =
          Publisher.open(
              kafka,
              new Publisher.Wiring(
                  config.runId(),
                  producerId,
                  clock,
                  pauseMeter,
                  lanes::takeLoopLagMicros,
                  handoff,
                  recorder),
              OutagePolicy.stop());
    } catch (RuntimeException e) {
      lanes.close();
      vertx.close();
      pauseMeter.close();
      closeQuietly(requestsOut);
      throw e;
    }
    Dialect dialect = Dialect.of(config.api());
    WarmupServer warmupServer;
    try {
      warmupServer = config.warmup().local() ? warmupServers.start(config) : null;
    } catch (RuntimeException e) {
      lanes.close();
      vertx.close();
      pauseMeter.close();
      closeQuietly(requestsOut);
      publisher.finish();
      throw new IllegalStateException("cannot start the local warm-up's server: " + e, e);
    }
    URI warmupUrl = warmupServer == null ? null : warmupServer.streamUrl();
    AtomicBoolean warmupServerOpen = new AtomicBoolean(warmupServer != null);
    Runnable closeWarmupServer =
        () -> {
          if (warmupServerOpen.getAndSet(false)) {
            warmupServer.close();
          }
        };
    Sessions sessions = new Sessions(config.prompts().conversations(), config.models());
    AtomicReference<StagedLoad> stages = new AtomicReference<>();
    // the labels of the stage under way: an engine event counts in its series
    AtomicReference<SortedMap<String, String>> stageLabels = new AtomicReference<>(config.labels());
    // no new request of a model after a failure no retry can fix; those in flight end as they
    // would; the run stops once no model is left
    FailFast failFast = new FailFast(config.models(), () -> stages.get().stop(config.stopGrace()));
    EndpointBackoff backoff = new EndpointBackoff();
    StagedLoad load =
        new StagedLoad(
            config,
            (stageConfig, stage) -> {
              stats.stage(stage); // the stage's rows in the order the stages start
              stageLabels.set(stageConfig.labels());
              LoadRunner runner =
                  new LoadRunner(
                      new CallContext(
                          vertx,
                          stageConfig,
                          dialect,
                          handoff,
                          failFast,
                          backoff,
                          warmupUrl,
                          recorder::warmupChunks),
                      lanes,
                      sessions);
              if (warmupServer != null) {
                // its streams still in flight end at once: the run measures on cores of its own
                runner.afterWarmup(() -> new Thread(closeWarmupServer, "tpot-warmup-stop").start());
              }
              return runner;
            });
    stages.set(load);
    CompletableFuture<RunResult> result = new CompletableFuture<>();
    long startNs = System.nanoTime();
    ProducerRun run =
        new ProducerRun(
            config, producerId, load, publisher, stats, failFast, backoff, startNs, result);
    AtomicReference<PublishException> kafkaFailure = new AtomicReference<>();
    publisher.onFailure(
        e -> {
          kafkaFailure.set(e);
          load.stop(Duration.ZERO);
        });
    LOG.info(
        "run {} (producer {}): {} model(s), {}, warm-up {}, publishing to {} ({} partitions);"
            + " {} event loops on {}",
        config.runId(),
        producerId,
        config.models().size(),
        shape(config),
        config.warmup().describe(),
        kafka.topic(),
        publisher.partitions().size(),
        lanes.size(),
        transport);
    String insecure = config.tls().insecureWarning(config.secrets().url(config.streamUrl()));
    if (insecure != null) {
      LOG.warn("run {}: {}", config.runId(), insecure);
    }
    // the engines' baseline before any request that reaches them: with a local warm-up, or none,
    // before the load starts (every measured request is then in the deltas, by construction); with
    // a warm-up to the endpoint, when it ends (the load has begun, so that it can say so)
    boolean warmupAtEngine = !config.warmup().local() && !config.warmup().none();
    CompletableFuture<Void> loaded = warmupAtEngine ? load.start() : null;
    EngineScraper engine =
        !config.engineMetrics().enabled()
            ? null
            : EngineScraper.start(
                new EngineScraper.Wiring(
                    config.engineMetrics(),
                    config.tls(),
                    url -> engineHeaders(config, dialect, url),
                    config.secrets(),
                    config.models(),
                    stageLabels::get,
                    config.runId(),
                    producerId,
                    Recorder.SOURCE,
                    clock::nowMs,
                    publisher::publish),
                warmupAtEngine ? load::warmingUp : () -> false);
    if (loaded == null) {
      if (engine != null) {
        engine.baseline().join(); // at most a scrape's timeout (5 s)
      }
      loaded = load.start();
    }
    loaded
        .handle((v, error) -> error)
        // the engines' last scrape before the final heartbeat, so that the last window has it
        .thenCompose(
            error ->
                (engine == null ? CompletableFuture.<Void>completedFuture(null) : engine.finish())
                    .thenCompose(
                        v ->
                            error == null
                                ? CompletableFuture.<Void>completedFuture(null)
                                : CompletableFuture.<Void>failedFuture(error)))
        .thenCompose(v -> publisher.finish())
        .whenComplete(
            (v, error) -> {
              closeWarmupServer.run();
              lanes.close();
              vertx.close();
              pauseMeter.close();
              if (requestsOut != null) {
                try {
                  requestsOut.close();
                } catch (IOException e) {
                  LOG.warn("{}", e.getMessage());
                }
              }
              PublishException failed = kafkaFailure.get();
              if (failed == null && error != null) {
                failed =
                    error.getCause() instanceof PublishException p
                        ? p
                        : new PublishException(String.valueOf(error.getMessage()), error);
              }
              if (failed != null) {
                result.completeExceptionally(failed);
                return;
              }
              result.complete(
                  new RunResult(
                      config.runId(),
                      producerId,
                      kafka.topic(),
                      stats.snapshot(),
                      Duration.ofNanos(System.nanoTime() - startNs),
                      run.stopRequested(),
                      load.notSent(),
                      publisher.acknowledged(),
                      publisher.heartbeats(),
                      publisher.lateAtSource(),
                      pauseMeter.maxEverMicros(),
                      recorder.warmupRequests(),
                      config.warmup().describe(),
                      load.warmupEnd(),
                      lanes.maxLoopLagMicros(),
                      recorder.tokenChunks(),
                      recorder.coalescedChunks(),
                      recorder.touchedChunks(),
                      publisher.outages(),
                      transport,
                      failFast.stoppedModels(),
                      backoff.state(System.nanoTime()),
                      engine == null ? null : engine.summary()));
            });
    return run;
  }

  /**
   * The headers a scrape of {@code url} sends: the endpoint's own (its key, the config's {@code
   * headers}) when {@code url} is on the same scheme, host and port as {@code base_url}; none to
   * any other host, which must not see the endpoint's credentials.
   */
  static Map<String, String> engineHeaders(ProducerConfig config, Dialect dialect, URI url) {
    URI base = config.apiBase();
    boolean sameOrigin =
        url.getScheme().equalsIgnoreCase(base.getScheme())
            && url.getHost().equalsIgnoreCase(base.getHost())
            && port(url) == port(base);
    if (!sameOrigin) {
      return Map.of();
    }
    Map<String, String> headers = new LinkedHashMap<>();
    dialect.authHeaders(config, headers::put);
    headers.putAll(config.headers());
    return headers;
  }

  private static int port(URI url) {
    return url.getPort() >= 0
        ? url.getPort()
        : "https".equalsIgnoreCase(url.getScheme()) ? 443 : 80;
  }

  private static void closeQuietly(RequestsOut out) {
    if (out != null) {
      try {
        out.close();
      } catch (IOException e) {
        // the run did not start: nothing was written
      }
    }
  }

  private static String shape(ProducerConfig config) {
    String bound =
        config.duration() == null
            ? config.trace() != null
                ? "to the trace's end"
                : config.totalRequests() + " requests per model"
            : config.duration().equals(ConfigDurations.FOREVER)
                ? config.trace() != null ? "again and again until stopped" : "until stopped"
                : "for " + ConfigDurations.format(config.duration());
    if (config.trace() != null) {
      return "open loop replaying "
          + config.trace().describe()
          + (config.concurrency() == null ? "" : ", at most " + config.concurrency() + " in flight")
          + ", "
          + bound;
    }
    String sweep =
        config.sweep() == null ? "" : ", sweep " + config.sweep().text() + " (per stage)";
    if (config.openLoop()) {
      return "open loop at "
          + (config.traffic() != null && config.traffic().schedule() != null
              ? "schedule " + config.traffic().schedule().describe()
              : config.rate() == null ? "the sweep's rates" : config.rate() + " req/s")
          + " ("
          + config.arrival().name().toLowerCase(Locale.ROOT)
          + (config.concurrency() == null ? "" : ", at most " + config.concurrency() + " in flight")
          + "), "
          + bound
          + sweep;
    }
    return "closed loop, concurrency " + config.concurrency() + ", " + bound + sweep;
  }

  /** A new producer id: host, process id and a random suffix (the proxy takes one too). */
  public static String newProducerId() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      host = "host";
    }
    String suffix = Integer.toHexString(0x10000 | ThreadLocalRandom.current().nextInt(0x10000));
    return host.replaceAll("[^A-Za-z0-9_.-]", "")
        + "-"
        + ProcessHandle.current().pid()
        + "-"
        + suffix.substring(1);
  }
}

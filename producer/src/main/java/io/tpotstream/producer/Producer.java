package io.tpotstream.producer;

import io.tpotstream.common.slo.GoodputLimits;
import io.tpotstream.producer.config.Durations;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.dialect.Dialect;
import io.tpotstream.producer.http.CallOutcome;
import io.tpotstream.producer.http.EventContext;
import io.tpotstream.producer.http.HttpClients;
import io.tpotstream.producer.load.Lanes;
import io.tpotstream.producer.load.LoadRunner;
import io.tpotstream.producer.load.StagedLoad;
import io.tpotstream.producer.publish.AnchoredClock;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.producer.publish.PauseMeter;
import io.tpotstream.producer.publish.PublishException;
import io.tpotstream.producer.publish.Publisher;
import io.tpotstream.producer.report.RequestsOut;
import io.tpotstream.producer.report.RunStats;
import io.tpotstream.producer.workload.Sessions;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClientAgent;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
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

  /** As {@link #start(ProducerConfig, KafkaSettings)}, writing {@code outputs} too. */
  public static ProducerRun start(ProducerConfig config, KafkaSettings kafka, Outputs outputs) {
    Warmup.run(config);
    RequestsOut requestsOut =
        outputs.requestsOut() == null
            ? null
            : RequestsOut.open(outputs.requestsOut(), outputs.goodput());
    String producerId = newProducerId();
    AnchoredClock clock = AnchoredClock.start();
    PauseMeter pauseMeter = PauseMeter.start();
    Publisher publisher;
    try {
      publisher = Publisher.open(kafka, config.runId(), producerId, clock, pauseMeter);
    } catch (RuntimeException e) {
      pauseMeter.close();
      closeQuietly(requestsOut);
      throw e;
    }
    int loops = Math.max(1, VertxOptions.DEFAULT_EVENT_LOOP_POOL_SIZE);
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(loops));
    HttpClientAgent client = HttpClients.create(vertx, config);
    Lanes lanes;
    try {
      lanes =
          Lanes.deploy(vertx, loops)
              .toCompletionStage()
              .toCompletableFuture()
              .get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      vertx.close();
      publisher.finish();
      pauseMeter.close();
      throw new IllegalStateException("cannot start the HTTP event loops", e);
    }
    EventContext events =
        new EventContext(config.runId(), producerId, config.labels(), clock, publisher::publish);
    RunStats stats = new RunStats(config.models(), outputs.goodput());
    Sessions sessions = new Sessions(config.prompts().conversations(), config.models());
    Dialect dialect = Dialect.of(config.api());
    StagedLoad load =
        new StagedLoad(
            config,
            (stageConfig, stage) -> {
              Consumer<CallOutcome> table = stats.stage(stage);
              return new LoadRunner(
                  vertx,
                  client,
                  stageConfig,
                  dialect,
                  events,
                  lanes,
                  sessions,
                  (spec, outcome) -> {
                    table.accept(outcome);
                    if (requestsOut != null) {
                      requestsOut.finished(
                          spec.requestId(),
                          config.runId(),
                          spec.model(),
                          spec.labels(),
                          clock.tsMs(outcome.startNs()),
                          outcome);
                    }
                  });
            });
    CompletableFuture<RunResult> result = new CompletableFuture<>();
    long startNs = System.nanoTime();
    ProducerRun run = new ProducerRun(config, producerId, load, publisher, stats, startNs, result);
    AtomicReference<PublishException> kafkaFailure = new AtomicReference<>();
    publisher.onFailure(
        e -> {
          kafkaFailure.set(e);
          load.stop(Duration.ZERO);
        });
    LOG.info(
        "run {} (producer {}): {} model(s), {}, publishing to {} ({} partitions)",
        config.runId(),
        producerId,
        config.models().size(),
        shape(config),
        kafka.topic(),
        publisher.partitions().size());
    load.start()
        .thenCompose(v -> publisher.finish())
        .whenComplete(
            (v, error) -> {
              client.close();
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
                      pauseMeter.maxEverMicros()));
            });
    return run;
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
            ? config.totalRequests() + " requests per model"
            : config.duration().equals(Durations.FOREVER)
                ? "until stopped"
                : "for " + Durations.format(config.duration());
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

  private static String newProducerId() {
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

package io.tpotstream.producer;

import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.http.EndpointBackoff;
import io.tpotstream.producer.http.FailFast;
import io.tpotstream.producer.load.StagedLoad;
import io.tpotstream.producer.publish.Publisher;
import io.tpotstream.producer.result.RunStats;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A producer run in progress: its result, its progress, and the way to stop it. */
public final class ProducerRun {
  private final ProducerConfig config;
  private final String producerId;
  private final StagedLoad load;
  private final Publisher publisher;
  private final RunStats stats;
  private final FailFast failFast;
  private final EndpointBackoff backoff;
  private final long startNs;
  private final CompletableFuture<RunResult> result;
  private volatile boolean stopRequested;

  ProducerRun(
      ProducerConfig config,
      String producerId,
      StagedLoad load,
      Publisher publisher,
      RunStats stats,
      FailFast failFast,
      EndpointBackoff backoff,
      long startNs,
      CompletableFuture<RunResult> result) {
    this.config = config;
    this.producerId = producerId;
    this.load = load;
    this.publisher = publisher;
    this.stats = stats;
    this.failFast = failFast;
    this.backoff = backoff;
    this.startNs = startNs;
    this.result = result;
  }

  /**
   * Completes after the last request finished, the events were flushed and the final heartbeats
   * sent; completes exceptionally with a {@link io.tpotstream.producer.publish.PublishException}
   * when Kafka stopped taking events.
   */
  public CompletableFuture<RunResult> result() {
    return result;
  }

  /**
   * Stops the run cleanly (the Ctrl-C path): no new requests; requests in flight may finish within
   * the config's {@code stop_grace}, then they are recorded as {@code cancelled}; then the
   * publisher flushes and sends the final heartbeats. Returns at once; wait on {@link #result()}.
   */
  public void stop() {
    stopRequested = true;
    load.stop(config.stopGrace());
  }

  /**
   * Makes Ctrl-C and SIGTERM stop this run cleanly: a shutdown hook calls {@link #stop()} and waits
   * (up to the stop grace plus {@code flushWait}) for the final heartbeats.
   */
  public void stopOnShutdown(Duration flushWait) {
    stopOnShutdown(flushWait, result -> {});
  }

  /**
   * As {@link #stopOnShutdown(Duration)}, then hands the result to {@code onStopped} in the hook
   * (e.g. to print the table before the JVM exits).
   */
  public void stopOnShutdown(Duration flushWait, java.util.function.Consumer<RunResult> onStopped) {
    Thread hook =
        new Thread(
            () -> {
              if (result.isDone()) {
                return;
              }
              stop();
              try {
                onStopped.accept(
                    result.get(
                        config.stopGrace().plus(flushWait).toMillis(), TimeUnit.MILLISECONDS));
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (ExecutionException | TimeoutException e) {
                // the caller reports the failure; at exit there is nothing more to do
              }
            },
            "tpot-producer-stop");
    Runtime.getRuntime().addShutdownHook(hook);
  }

  boolean stopRequested() {
    return stopRequested;
  }

  public String runId() {
    return config.runId();
  }

  public String producerId() {
    return producerId;
  }

  /** The state now, for a progress line. */
  public ProducerState progress() {
    return new ProducerState(
        stats.finished(),
        config.plannedRequests(),
        load.inFlight(),
        stats.errors(),
        stats.outputTokens(),
        Duration.ofNanos(System.nanoTime() - startNs),
        config.duration(),
        load.warmingUp(),
        load.warmupIssued(),
        publisher.inOutage() ? publisher.held() : 0,
        List.copyOf(failFast.stoppedModels().keySet()),
        backoff.state(System.nanoTime()));
  }

  /** Token events Kafka acknowledged so far. */
  public long eventsPublished() {
    return publisher.acknowledged();
  }
}

package io.tpotstream.simulator;

import io.tpotstream.simulator.api.Routes;
import io.tpotstream.simulator.api.SimulatorVerticle;
import io.tpotstream.simulator.api.Warmup;
import io.tpotstream.simulator.pacing.Pacer;
import io.tpotstream.simulator.truth.GroundTruth;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A running LLM API simulator: an OpenAI- and Anthropic-compatible streaming HTTP server whose
 * token timing follows seedable per-model profiles, and whose actual send instants are recorded as
 * {@link #truth() ground truth}.
 *
 * <p>Determinism: each request draws everything (fault, length, chunk sizes, TTFT, gaps, token
 * texts) from its own random generator seeded by the run seed, the model and the request id. The
 * request id is the client's {@code X-Request-Id} header, else {@code sim-N} where N counts, from
 * 1, the requests without that header that reached planning. So with the same {@code seed}, the
 * same requests (same model and id, or the same arrival order for unnamed ones) get the same token
 * texts and the same scheduled gaps, whatever the concurrency.
 *
 * <p>The server has its own Vert.x instance (its own event loops, on Linux's epoll transport when
 * available; {@code -Dtpot.simulator.nio=true} forces NIO) and one pacing thread, so a producer in
 * the same JVM does not share threads with it.
 */
public final class Simulator implements AutoCloseable {
  private static final long START_TIMEOUT_S = 30;

  private final SimulatorConfig config;
  private final Vertx vertx;
  private final Pacer pacer;
  private final GroundTruth truth;
  private final int port;

  private Simulator(SimulatorConfig config, Vertx vertx, Pacer pacer, GroundTruth truth, int port) {
    this.config = config;
    this.vertx = vertx;
    this.pacer = pacer;
    this.truth = truth;
    this.port = port;
  }

  /**
   * Starts a simulator and returns once it listens and has warmed up (at most 30 s each); call from
   * any thread but an event loop. The warm-up streams {@link SimulatorConfig#warmupChunks()} chunks
   * through its own HTTP path so that the JIT has compiled it before the first real request (about
   * a second); its requests are then forgotten by the ground truth.
   *
   * @throws IllegalStateException when it cannot listen (port taken, bad host) or open the truth
   *     file, with a one-line reason
   */
  public static Simulator start(SimulatorConfig config) {
    long seed = config.seed() != null ? config.seed() : new SecureRandom().nextLong();
    GroundTruth truth;
    try {
      truth = new GroundTruth(seed, config.requestsKept(), config.truthFile());
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    Pacer pacer = new Pacer(config.spinNs(), "simulator-pacer");
    Vertx vertx =
        Vertx.vertx(
            new VertxOptions()
                .setEventLoopPoolSize(config.eventLoops())
                .setPreferNativeTransport(!Boolean.getBoolean("tpot.simulator.nio")));
    Routes routes = new Routes(config.profiles(), seed, config.apiKey(), truth, pacer);
    int port;
    try {
      // a negative port is Vert.x's "one random port shared by every instance"
      int listenPort = config.port() == 0 ? -1 : config.port();
      List<SimulatorVerticle> instances = new CopyOnWriteArrayList<>();
      await(
          vertx.deployVerticle(
              () -> {
                SimulatorVerticle instance =
                    new SimulatorVerticle(routes, config.host(), listenPort);
                instances.add(instance);
                return instance;
              },
              new DeploymentOptions().setInstances(config.eventLoops())));
      port = instances.get(0).actualPort();
    } catch (RuntimeException e) {
      pacer.close();
      closeQuietly(vertx);
      truth.close();
      throw new IllegalStateException(
          "cannot listen on "
              + config.host()
              + ":"
              + config.port()
              + " ("
              + e.getMessage()
              + "): is another server using this port? choose another --port",
          e);
    }
    if (config.warmupChunks() > 0) {
      try {
        await(Warmup.run(vertx, config.host(), port, config.warmupChunks()));
      } catch (RuntimeException e) {
        pacer.close();
        closeQuietly(vertx);
        truth.close();
        throw new IllegalStateException(
            "the warm-up (" + config.warmupChunks() + " chunks) did not finish: " + e.getMessage(),
            e);
      }
      truth.reset();
    }
    return new Simulator(config, vertx, pacer, truth, port);
  }

  private static <T> T await(Future<T> future) {
    try {
      return future
          .toCompletionStage()
          .toCompletableFuture()
          .get(START_TIMEOUT_S, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw new IllegalStateException(
          cause.getMessage() != null ? cause.getMessage() : cause.toString(), cause);
    } catch (TimeoutException e) {
      throw new IllegalStateException("not started within " + START_TIMEOUT_S + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting", e);
    }
  }

  private static void closeQuietly(Vertx vertx) {
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      // closing is best effort
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  public int port() {
    return port;
  }

  /** The server's root, e.g. {@code http://127.0.0.1:8000}; any path prefix before /v1 works. */
  public String baseUrl() {
    String host = config.host().contains(":") ? "[" + config.host() + "]" : config.host();
    return "http://" + ("0.0.0.0".equals(host) ? "127.0.0.1" : host) + ":" + port;
  }

  /** The base URL an OpenAI client takes: {@link #baseUrl()} + {@code /v1}. */
  public String openAiBaseUrl() {
    return baseUrl() + "/v1";
  }

  /** The ground truth recorder: what was actually sent, per model and per request. */
  public GroundTruth truth() {
    return truth;
  }

  /** The run seed (given, or drawn at start). */
  public long seed() {
    return truth.seed();
  }

  public SimulatorConfig config() {
    return config;
  }

  /** Stops pacing, closes the server and its connections, and flushes the truth file. */
  @Override
  public void close() {
    pacer.close();
    closeQuietly(vertx);
    truth.close();
  }
}

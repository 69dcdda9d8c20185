package io.tpotstream.simulator;

import io.tpotstream.common.PortInUse;
import io.tpotstream.common.Waits;
import io.tpotstream.simulator.api.Routes;
import io.tpotstream.simulator.api.SimulatorPrimer;
import io.tpotstream.simulator.api.SimulatorVerticle;
import io.tpotstream.simulator.cache.PrefixCache;
import io.tpotstream.simulator.pacing.LoopPriority;
import io.tpotstream.simulator.pacing.LoopTimers;
import io.tpotstream.simulator.truth.GroundTruth;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

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
 * available; {@code -Dtpot.simulator.nio=true} forces NIO), so a producer in the same JVM does not
 * share threads with it. Each event loop paces its own connections' chunks with its own timer
 * ({@link io.tpotstream.simulator.pacing.LoopTimer}): each chunk is due its planned gap after the
 * previous one was actually sent.
 *
 * <p>Prefix caching: the prompt of each request is keyed in blocks ({@link
 * io.tpotstream.simulator.cache.PromptBlocks}) and looked up in one LRU shared by the event loops
 * ({@link PrefixCache}); the leading blocks it held are reported as cached tokens, and the TTFT
 * grows with the tokens it did not hold (the profile's {@code prefillMsPerToken}).
 */
public final class Simulator implements AutoCloseable {
  private static final long START_TIMEOUT_S = 30;

  private final SimulatorConfig config;
  private final Vertx vertx;
  private final LoopPriority priority;
  private final GroundTruth truth;
  private final int port;
  private final List<String> notes;

  private Simulator(
      SimulatorConfig config,
      Vertx vertx,
      LoopPriority priority,
      GroundTruth truth,
      int port,
      List<String> notes) {
    this.config = config;
    this.vertx = vertx;
    this.priority = priority;
    this.truth = truth;
    this.port = port;
    this.notes = List.copyOf(notes);
  }

  /**
   * Starts a simulator and returns once it listens (at most 30 s per step); call from any thread
   * but an event loop. Before its port opens it streams {@link SimulatorConfig#warmupChunks()}
   * chunks to itself on a private port, so that the JIT has compiled the paced per-chunk path
   * before the first real request (well under a second; the ground truth then forgets them), and it
   * raises its event loops to real-time priority when asked and allowed ({@link #notes()} says what
   * it got).
   *
   * @throws IllegalStateException when it cannot listen (port taken, bad host) or open the truth
   *     file, with a one-line reason
   */
  public static Simulator start(SimulatorConfig config) {
    long seed = config.seed() != null ? config.seed() : new SecureRandom().nextLong();
    PrefixCache prefixCache =
        config.prefixCacheBlocks() == 0 ? null : new PrefixCache(config.prefixCacheBlocks());
    GroundTruth truth;
    try {
      truth = new GroundTruth(seed, config.requestsKept(), config.truthFile(), prefixCache);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    Vertx vertx =
        Vertx.vertx(
            new VertxOptions()
                .setEventLoopPoolSize(config.eventLoops())
                .setPreferNativeTransport(!Boolean.getBoolean("tpot.simulator.nio")));
    List<String> notes = new ArrayList<>();
    if (!vertx.isNativeTransportEnabled()) {
      notes.add(
          "no native epoll transport here: chunks are paced with NIO's millisecond timers, up to"
              + " about 1 ms late (see the pacing error in GET /truth)");
    }
    Routes routes = new Routes(config.profiles(), seed, config.apiKey(), truth, prefixCache);
    LoopTimers timers = new LoopTimers();
    LoopPriority priority = LoopPriority.normal("event loops at normal priority");
    try {
      if (config.warmupChunks() > 0) {
        warmUp(vertx, routes, timers, config);
        truth.reset();
        if (prefixCache != null) {
          prefixCache.clear();
        }
      }
      if (config.realtimeLoops()) {
        priority = LoopPriority.raise(vertx);
      }
      notes.add(priority.note());
      int port = listen(vertx, routes, timers, config.host(), config.port(), config.eventLoops());
      return new Simulator(config, vertx, priority, truth, port, notes);
    } catch (RuntimeException e) {
      priority.close();
      closeQuietly(vertx);
      truth.close();
      throw e;
    }
  }

  /** Streams the warm-up through every event loop on a private port, then closes that port. */
  private static void warmUp(
      Vertx vertx, Routes routes, LoopTimers timers, SimulatorConfig config) {
    String deployment;
    int warmupPort;
    try {
      List<SimulatorVerticle> instances = new CopyOnWriteArrayList<>();
      deployment =
          await(deploy(vertx, routes, timers, "127.0.0.1", -1, config.eventLoops(), instances));
      warmupPort = instances.get(0).actualPort();
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "cannot listen on a free port of 127.0.0.1 for the warm-up: " + e.getMessage(), e);
    }
    try {
      await(
          SimulatorPrimer.run(
              vertx, "127.0.0.1", warmupPort, config.warmupChunks(), config.eventLoops()));
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "the warm-up (" + config.warmupChunks() + " chunks) did not finish: " + e.getMessage(),
          e);
    }
    await(vertx.undeploy(deployment));
  }

  /** Opens the real port; returns the port (the chosen one when asked for 0). */
  private static int listen(
      Vertx vertx, Routes routes, LoopTimers timers, String host, int port, int eventLoops) {
    try {
      // a negative port is Vert.x's "one random port shared by every instance"
      List<SimulatorVerticle> instances = new CopyOnWriteArrayList<>();
      await(deploy(vertx, routes, timers, host, port == 0 ? -1 : port, eventLoops, instances));
      return instances.get(0).actualPort();
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          PortInUse.message(host + ":" + port, e.getMessage(), "--port"), e);
    }
  }

  /** One server verticle per event loop, all on {@code port}. */
  private static Future<String> deploy(
      Vertx vertx,
      Routes routes,
      LoopTimers timers,
      String host,
      int port,
      int eventLoops,
      List<SimulatorVerticle> instances) {
    return vertx.deployVerticle(
        () -> {
          SimulatorVerticle instance = new SimulatorVerticle(routes, timers, host, port);
          instances.add(instance);
          return instance;
        },
        new DeploymentOptions().setInstances(eventLoops));
  }

  private static <T> T await(Future<T> future) {
    return Waits.await(
        future.toCompletionStage(), START_TIMEOUT_S, "not started", "interrupted while starting");
  }

  private static void closeQuietly(Vertx vertx) {
    Waits.quietly(vertx.close().toCompletionStage(), 10);
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

  /**
   * What a user should know about how this simulator paces, one line each: the event loops'
   * priority, and the timers when the native transport is missing.
   */
  public List<String> notes() {
    return notes;
  }

  /**
   * How many times an event loop busy over 85% of a second was put back from real-time to normal
   * priority (0 when the loops never were real-time).
   */
  public int loopDemotions() {
    return priority.demotions();
  }

  /** Stops pacing, closes the server and its connections, and flushes the truth file. */
  @Override
  public void close() {
    priority.close();
    closeQuietly(vertx);
    truth.close();
  }
}

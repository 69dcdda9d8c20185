package io.tpotstream.proxy;

import io.tpotstream.common.Waits;
import io.tpotstream.common.metrics.MetricsServer;
import io.tpotstream.common.secret.Secrets;
import io.tpotstream.producer.Producer;
import io.tpotstream.producer.engine.EngineScraper;
import io.tpotstream.producer.engine.EngineScrapes;
import io.tpotstream.producer.publish.AnchoredClock;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.proxy.events.ProxyEvents;
import io.tpotstream.proxy.http.ObserverFactory;
import io.tpotstream.proxy.http.ProxyVerticle;
import io.tpotstream.proxy.measure.Measurements;
import io.tpotstream.proxy.metrics.ProxyMetrics;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running {@code tpot proxy}: a reverse proxy in front of one OpenAI- or Anthropic-compatible
 * upstream, on its own Vert.x instance (one HTTP/1.1 server and upstream client per event loop,
 * epoll where available), with its own {@code /metrics}; measured streams become token events.
 */
public final class TpotProxy implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TpotProxy.class);
  private static final long START_TIMEOUT_S = 30;
  // a scrape ends within 5 s
  private static final long ENGINE_FINISH_S = 10;

  private final ProxyConfig config;
  private final Vertx vertx;
  private final List<ProxyVerticle> instances;
  private final ProxyMetrics metrics;
  private final MetricsServer endpoint;
  private final int port;
  private ProxyEvents events;
  private EngineScraper engine;
  private String producerId;
  private boolean closed;

  private String startup = "";

  private TpotProxy(
      ProxyConfig config,
      Vertx vertx,
      List<ProxyVerticle> instances,
      ProxyMetrics metrics,
      MetricsServer endpoint) {
    this.config = config;
    this.vertx = vertx;
    this.instances = instances;
    this.metrics = metrics;
    this.endpoint = endpoint;
    this.port = instances.get(0).actualPort();
  }

  /**
   * Starts the proxy and its publishing to Kafka, not primed: {@code config.prime()} must be zero
   * (priming needs a server: {@link #start(ProxyConfig, KafkaSettings, Primer)}).
   */
  public static TpotProxy start(ProxyConfig config, KafkaSettings kafka) {
    if (config.prime().compareTo(Duration.ZERO) > 0) {
      throw new IllegalArgumentException(
          "priming for " + config.prime() + " needs a server to prime against: pass a Primer");
    }
    return start(
        config,
        kafka,
        model -> {
          throw new IllegalStateException("not primed");
        });
  }

  /**
   * Starts the proxy and its publishing to Kafka: token events of the measured streams, heartbeats
   * with watermarks, all with its own producer id. Kafka need not be up: the proxy serves at once
   * and connects in the background (events are dropped and counted until it is connected). First,
   * for {@code config.prime()}, it primes its path against {@code primer}'s server.
   */
  public static TpotProxy start(ProxyConfig config, KafkaSettings kafka, Primer primer) {
    String producerId = Producer.newProducerId();
    AnchoredClock clock = AnchoredClock.start();
    ProxyEvents events =
        ProxyEvents.start(kafka, config.runId(), producerId, clock, config.upstream().url());
    ProxyMetrics metrics = new ProxyMetrics();
    metrics.registerEvents(events::published, events::dropped, events::held);
    long startNs = System.nanoTime();
    TpotProxy proxy;
    ProxyPrimer.Primed primed = null;
    Measurements measuring;
    try {
      if (config.prime().compareTo(Duration.ZERO) > 0) {
        primed =
            ProxyPrimer.prime(
                config,
                new Measurements(config, events, new ProxyMetrics(), true),
                config.prime(),
                primer);
      }
      measuring = new Measurements(config, events, metrics);
    } catch (RuntimeException e) {
      events.close();
      throw e;
    }
    // after priming and before the proxy listens: the baseline holds nothing the proxy measures,
    // and every request it measures is in the deltas (the start waits at most a scrape's timeout)
    EngineScraper engine =
        !config.engineMetrics().enabled()
            ? null
            : EngineScraper.start(
                engineWiring(config, producerId, clock, events, measuring.modelsSeen()),
                () -> false);
    try {
      if (engine != null) {
        engine.baseline().join();
      }
      proxy = start(config, metrics, measuring);
    } catch (RuntimeException e) {
      if (engine != null) {
        Waits.quietly(engine.finish(), ENGINE_FINISH_S);
      }
      events.close();
      throw e;
    }
    proxy.instances.forEach(v -> events.watch(v.loopLag()));
    proxy.events = events;
    proxy.producerId = producerId;
    if (engine != null) {
      proxy.engine = engine;
      metrics.registerEngine(engine::summary);
    }
    proxy.startup = startup(Duration.ofNanos(System.nanoTime() - startNs), primed);
    return proxy;
  }

  /**
   * The proxy's scrapes: the upstream's TLS options and no headers (the proxy holds no
   * credentials), the engine's own model names (or the URL object's; or, for an engine of one
   * model, the one model the measured requests named), the proxy's labels.
   */
  private static EngineScraper.Wiring engineWiring(
      ProxyConfig config,
      String producerId,
      AnchoredClock clock,
      ProxyEvents events,
      List<String> modelsSeen) {
    Secrets.Builder secrets = Secrets.builder();
    config.engineMetrics().targets().forEach(t -> secrets.url(t.url().toString()));
    return new EngineScraper.Wiring(
        config.engineMetrics(),
        config.upstreamTls(),
        url -> Map.of(),
        secrets.build(),
        modelsSeen, // live: an engine of one model is the one model the requests named
        config::labels,
        config.runId(),
        producerId,
        ProxyEvents.SOURCE,
        clock::nowMs,
        events::publish);
  }

  /** What the start took, and what priming did, in one line. */
  private static String startup(Duration took, ProxyPrimer.Primed primed) {
    String line = String.format(Locale.ROOT, "started in %.1f s", took.toMillis() / 1000.0);
    if (primed == null) {
      return line + ", not primed (--prime 0)";
    }
    return line
        + String.format(
            Locale.ROOT,
            ", primed first for %.1f s: %,d streams (%,d chunks) forwarded and measured inside"
                + " the process (their events not published)",
            primed.took().toMillis() / 1000.0,
            primed.streams(),
            primed.chunks());
  }

  /**
   * What the start took and whether the proxy was primed, e.g. {@code started in 2.3 s, primed
   * first for 2.0 s: …}.
   */
  public String startup() {
    return startup;
  }

  /**
   * Starts listening and returns once every event loop serves (at most 30 s).
   *
   * @param observers decides which exchanges are measured and how
   * @throws IllegalStateException when it cannot listen (port taken, bad host), with the reason
   */
  public static TpotProxy start(
      ProxyConfig config, ProxyMetrics metrics, ObserverFactory observers) {
    Vertx vertx =
        Vertx.vertx(
            new VertxOptions()
                .setEventLoopPoolSize(config.eventLoops())
                .setPreferNativeTransport(!Boolean.getBoolean("tpot.proxy.nio")));
    List<ProxyVerticle> instances = new CopyOnWriteArrayList<>();
    // a negative port is Vert.x's "one random port shared by every instance"
    int listenPort = config.port() == 0 ? -1 : config.port();
    try {
      await(
          vertx.deployVerticle(
              () -> {
                ProxyVerticle instance = new ProxyVerticle(config, metrics, observers, listenPort);
                instances.add(instance);
                return instance;
              },
              new DeploymentOptions().setInstances(config.eventLoops())));
    } catch (RuntimeException e) {
      closeQuietly(vertx);
      throw new IllegalStateException(
          "cannot listen on "
              + config.host()
              + ":"
              + config.port()
              + " ("
              + e.getMessage()
              + "): is another server using this port? choose another --listen port",
          e);
    }
    String insecure = config.upstreamTls().insecureWarning(config.upstream().url());
    if (insecure != null) {
      LOG.warn("{}", insecure);
    }
    // the proxy's own /metrics, on a port of its own so that no path of the proxied API is
    // shadowed; served by the Prometheus client's server threads, never by the event loops
    MetricsServer endpoint = null;
    if (config.metricsPort() >= 0) {
      try {
        endpoint =
            MetricsServer.start(
                config.host(),
                config.metricsPort(),
                metrics.registry(),
                config.host() + ":" + config.metricsPort(),
                "--metrics-port (-1 for none)");
      } catch (RuntimeException e) {
        closeQuietly(vertx);
        throw new IllegalStateException(e.getMessage(), e);
      }
    }
    return new TpotProxy(config, vertx, instances, metrics, endpoint);
  }

  /** The port the proxy listens on. */
  public int port() {
    return port;
  }

  /** The proxy's root URL, e.g. {@code http://127.0.0.1:8080}: an application's new base. */
  public String baseUrl() {
    String host = config.host().contains(":") ? "[" + config.host() + "]" : config.host();
    String scheme = config.listenTls().hasCertificate() ? "https://" : "http://";
    return scheme + ("0.0.0.0".equals(host) ? "127.0.0.1" : host) + ":" + port;
  }

  /** The port of {@code /metrics}, or -1 when none is served. */
  public int metricsPort() {
    return endpoint == null ? -1 : endpoint.port();
  }

  /** The producer id of the proxy's events (null when it publishes none). */
  public String producerId() {
    return producerId;
  }

  /** Where the token events go (null when none are published). */
  public ProxyEvents events() {
    return events;
  }

  /** What scraping the engines came to so far ({@code --engine-metrics}), or null without. */
  public EngineScrapes engineScrapes() {
    return engine == null ? null : engine.summary();
  }

  public ProxyMetrics metrics() {
    return metrics;
  }

  public ProxyConfig config() {
    return config;
  }

  /**
   * Stops accepting connections, lets requests in flight finish for up to the drain timeout, then
   * aborts the rest, closes the event loops and {@code /metrics}. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      await(Future.all(instances.stream().map(ProxyVerticle::stopListening).toList()));
    } catch (RuntimeException e) {
      LOG.warn("stopping the listeners: {}", e.getMessage());
    }
    long deadline = System.nanoTime() + config.drainTimeout().toNanos();
    long waiting;
    while ((waiting = instances.stream().mapToInt(ProxyVerticle::inFlight).sum()) > 0
        && System.nanoTime() < deadline) {
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    if (waiting > 0) {
      LOG.info(
          "{} request(s) still in flight after {} s: cutting them",
          waiting,
          config.drainTimeout().toSeconds());
      try {
        await(Future.all(instances.stream().map(ProxyVerticle::abortAll).toList()));
      } catch (RuntimeException e) {
        LOG.warn("aborting requests in flight: {}", e.getMessage());
      }
    }
    closeQuietly(vertx);
    if (engine != null) {
      // the last scrape, before the final heartbeat
      Waits.quietly(engine.finish(), ENGINE_FINISH_S);
      LOG.info("{}", engine.summary().line());
    }
    if (events != null) {
      events.close();
    }
    if (endpoint != null) {
      endpoint.close();
    }
  }

  private static <T> T await(Future<T> future) {
    return Waits.await(future.toCompletionStage(), START_TIMEOUT_S, "no answer", "interrupted");
  }

  private static void closeQuietly(Vertx vertx) {
    Waits.quietly(vertx.close().toCompletionStage(), 10);
  }
}

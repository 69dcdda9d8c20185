package io.tpotstream.producer.engine;

import io.tpotstream.common.engine.EngineSample;
import io.tpotstream.common.event.EngineBounds;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventBounds;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.event.TokenEventFormatException;
import io.tpotstream.common.secret.Secrets;
import io.tpotstream.producer.http.ClientTls;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --engine-metrics}: scrapes the inference engines' Prometheus endpoints on a thread of its
 * own and publishes what each scrape interval added as {@code engine} events, in order with the
 * producer's (or the proxy's) other events and heartbeats (docs/producer.md, "The engine's own
 * view").
 *
 * <p>Scrapes start when the measured run starts (after any warm-up) with a baseline scrape, then
 * come {@value #LEAD_MS} ms before each multiple of the interval since the epoch, so that an
 * interval never straddles windows that are a multiple of it; each scrape's events carry the time
 * it was sent. {@link #finish} takes one last scrape, so that the last window gets its deltas,
 * before the caller's final heartbeat. A scrape that fails (refused, TLS, HTTP status, timeout, a
 * body past its bound, nothing readable) publishes a failure record for each model of that engine,
 * is counted, warned about once per kind of failure (then at DEBUG), and never stops the run.
 */
public final class EngineScraper {
  /** How long before each multiple of the interval a scrape is sent. */
  static final long LEAD_MS = 250;

  /** The longest a scrape may take (shorter when the interval is). */
  static final Duration MAX_TIMEOUT = Duration.ofSeconds(5);

  /** The model of an engine whose model the run cannot name (give the URL object's model). */
  static final String UNNAMED = "(unnamed)";

  private static final Logger LOG = LoggerFactory.getLogger(EngineScraper.class);
  private static final long WARMUP_POLL_MS = 50;

  /**
   * What the scraper is wired to.
   *
   * @param settings the endpoints and the interval
   * @param tls how the endpoints' certificates are checked (the endpoint's, or the upstream's)
   * @param headers the headers sent to a URL (the config's, to base_url's host only)
   * @param secrets masks every URL and message before it is printed or published
   * @param runModels the run's models (for the proxy, live: the models its requests named)
   * @param labels the labels of the events (the run's, the stage's during a sweep)
   * @param source the events' {@code source} ({@code producer} or {@code proxy})
   * @param clockMs the wall clock of the events (the producer's anchored clock)
   * @param publish hands an event to the publisher, in order with the rest
   */
  public record Wiring(
      EngineSettings settings,
      ClientTls tls,
      Function<URI, Map<String, String>> headers,
      Secrets secrets,
      List<String> runModels,
      Supplier<SortedMap<String, String>> labels,
      String runId,
      String producerId,
      String source,
      LongSupplier clockMs,
      Consumer<TokenEvent> publish) {}

  /** The scraper's time: what time it is, and a wait until a time that a stop cuts short. */
  interface Ticker {
    long nowMs();

    /** Waits until {@code atMs}; false when the scraper was stopped first. */
    boolean waitUntil(long atMs);
  }

  /** One endpoint and what its scrapes left. */
  private final class Endpoint {
    final EngineSettings.Target target;
    final String printed;
    final EngineDeltas deltas;
    EngineMapping mapping;
    Set<String> models = new LinkedHashSet<>();
    final Set<String> warned = new HashSet<>();
    boolean told;

    Endpoint(EngineSettings.Target target) {
      this.target = target;
      this.printed = wiring.secrets().url(target.url());
      // as its records carry it: a URL past the record's bound is cut, as the bounds say
      this.deltas =
          new EngineDeltas(TokenEventBounds.fit(printed, EngineBounds.MAX_ENDPOINT_CHARS));
      this.mapping = target.mapping();
    }

    String mappingName() {
      return mapping == null ? EngineMapping.AUTO : mapping.name();
    }
  }

  private final Wiring wiring;
  private final Ticker ticker;
  private final ExpositionParser.Limits limits;
  private final List<Endpoint> endpoints = new ArrayList<>();
  private final CountDownLatch stop = new CountDownLatch(1);
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private final CompletableFuture<Void> baseline = new CompletableFuture<>();
  private final Duration timeout;
  private final long intervalMs;
  private MetricsFetch fetch;
  private Thread thread;

  // the summary, read by other threads
  private long scrapes;
  private long failed;
  private String lastFailure;
  private final Set<String> missing = new TreeSet<>();
  private long skippedLines;

  /** A scraper on {@code ticker}'s time, bodies held to {@code limits}; {@link #start} runs it. */
  EngineScraper(Wiring wiring, Ticker ticker, ExpositionParser.Limits limits) {
    this.wiring = wiring;
    this.ticker = ticker;
    this.limits = limits;
    this.intervalMs = wiring.settings().interval().toMillis();
    this.timeout =
        wiring.settings().interval().compareTo(MAX_TIMEOUT) < 0
            ? wiring.settings().interval()
            : MAX_TIMEOUT;
    wiring.settings().targets().forEach(t -> endpoints.add(new Endpoint(t)));
  }

  /**
   * Starts scraping on a thread of its own, once {@code warmingUp} says the warm-up is over (for a
   * producer: ask after the load has started). Returns at once.
   */
  public static EngineScraper start(Wiring wiring, BooleanSupplier warmingUp) {
    EngineScraper scraper = new EngineScraper(wiring, null, ExpositionParser.Limits.DEFAULT);
    scraper.thread = new Thread(() -> scraper.run(warmingUp), "tpot-engine-metrics");
    scraper.thread.setDaemon(true);
    scraper.thread.start();
    return scraper;
  }

  /**
   * Stops scraping after one last scrape (unless the warm-up never ended); completes when that
   * scrape's events were handed to the publisher. Call it before the publisher's final heartbeat.
   */
  public CompletableFuture<Void> finish() {
    stop.countDown();
    return done;
  }

  /**
   * Completes once the baseline scrape's answers (or failures) are in, or the scraper stopped
   * before it: a load whose warm-up never reaches the engine starts after it, so that every
   * measured request is in the deltas and none is in the baseline.
   */
  public CompletableFuture<Void> baseline() {
    return baseline;
  }

  private void run(BooleanSupplier warmingUp) {
    try {
      runLoop(warmingUp);
    } catch (RuntimeException | Error e) {
      // a bug: the run goes on without the engine's view, loudly
      LOG.error("engine metrics: scraping stopped", e);
    } finally {
      baseline.complete(null);
      done.complete(null);
    }
  }

  /** The scrapes from the end of the warm-up to the stop, the last included; on this thread. */
  void runLoop(BooleanSupplier warmingUp) {
    Ticker time = ticker != null ? ticker : realTicker();
    fetch = new MetricsFetch(wiring.tls(), timeout, limits);
    try {
      while (warmingUp.getAsBoolean()) {
        if (!time.waitUntil(time.nowMs() + WARMUP_POLL_MS)) {
          return; // stopped before anything was measured
        }
      }
      round(time.nowMs()); // the baseline: the first interval holds measured traffic only
      baseline.complete(null);
      while (time.waitUntil(nextScrapeMs(time.nowMs(), intervalMs))) {
        round(time.nowMs());
      }
      round(time.nowMs()); // the last, so that the last window gets its deltas
    } finally {
      fetch.close();
    }
  }

  /** The first scrape time after {@code nowMs}: {@value #LEAD_MS} ms before a multiple. */
  static long nextScrapeMs(long nowMs, long intervalMs) {
    return Math.floorDiv(nowMs + LEAD_MS, intervalMs) * intervalMs + intervalMs - LEAD_MS;
  }

  private Ticker realTicker() {
    LongSupplier clock = wiring.clockMs();
    return new Ticker() {
      @Override
      public long nowMs() {
        return clock.getAsLong();
      }

      @Override
      public boolean waitUntil(long atMs) {
        try {
          for (long left = atMs - clock.getAsLong(); left > 0; left = atMs - clock.getAsLong()) {
            if (stop.await(left, TimeUnit.MILLISECONDS)) {
              return false;
            }
          }
          return stop.getCount() > 0;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
    };
  }

  /** Scrapes every endpoint at once, sent at {@code sentMs}, and publishes what they gave. */
  private void round(long sentMs) {
    List<CompletableFuture<Exposition>> bodies = new ArrayList<>();
    for (Endpoint e : endpoints) {
      Set<String> wanted = e.mapping == null ? EngineMapping.builtInNames() : e.mapping.allNames();
      bodies.add(
          fetch.get(e.target.url(), wiring.headers().apply(e.target.url()), wanted::contains));
    }
    for (int i = 0; i < endpoints.size(); i++) {
      Endpoint e = endpoints.get(i);
      Exposition body;
      try {
        body = bodies.get(i).get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
      } catch (ExecutionException x) {
        MetricsFetch.Failed f =
            x.getCause() instanceof MetricsFetch.FetchException fe
                ? fe.failed
                : new MetricsFetch.Failed("connection", String.valueOf(x.getCause()));
        failed(e, sentMs, f);
        continue;
      } catch (TimeoutException x) {
        failed(e, sentMs, new MetricsFetch.Failed("timeout", "no answer in time"));
        continue;
      } catch (InterruptedException x) {
        Thread.currentThread().interrupt();
        return;
      }
      read(e, sentMs, body);
    }
  }

  private void read(Endpoint e, long sentMs, Exposition body) {
    if (body.readableSamples() == 0 && body.badLines() == 0) {
      // an engine that has served nothing yet (the simulator, some servers) publishes nothing:
      // an answer all the same, and what it publishes next is new since
      e.deltas.answeredEmpty(sentMs);
      synchronized (this) {
        scrapes++;
      }
      return;
    }
    if (body.readableSamples() == 0) {
      failed(
          e,
          sentMs,
          new MetricsFetch.Failed(
              "unreadable",
              "nothing readable in the body ("
                  + body.badLines()
                  + " unreadable lines): is it a Prometheus /metrics endpoint?"));
      return;
    }
    if (e.mapping == null) {
      e.mapping = EngineMapping.detect(body);
      if (e.mapping == null) {
        failed(
            e,
            sentMs,
            new MetricsFetch.Failed(
                "unknown_engine",
                "no vLLM, SGLang or TGI metric in the body: name the engine's metrics with"
                    + " --engine-mapping FILE"));
        return;
      }
    }
    if (body.badLines() + body.droppedSamples() > 0) {
      warnOnce(
          e,
          "skipped",
          "engine metrics at "
              + e.printed
              + ": "
              + body.badLines()
              + " unreadable lines skipped"
              + (body.droppedSamples() > 0
                  ? ", " + body.droppedSamples() + " samples past " + limits.maxSamples()
                  : ""));
    }
    Map<String, EngineSample> byEngineModel = e.deltas.next(body, e.mapping, sentMs);
    Map<String, String> names = new LinkedHashMap<>();
    for (String engineModel : byEngineModel.keySet()) {
      String model = modelFor(engineModel, byEngineModel.size(), e.target, wiring.runModels());
      if (model.codePointCount(0, model.length()) > TokenEventBounds.MAX_MODEL_CHARS) {
        warnOnce(
            e,
            "long_model",
            "engine metrics at "
                + e.printed
                + ": a model name of more than "
                + TokenEventBounds.MAX_MODEL_CHARS
                + " characters is left out (name the model in the URL object)");
        continue;
      }
      names.put(engineModel, model);
      publish(e, sentMs, model, byEngineModel.get(engineModel));
    }
    if (!e.told) {
      e.told = true;
      LOG.info(
          "engine metrics at {}: read as {}, every {} ms; models {}",
          e.printed,
          e.mapping.name(),
          intervalMs,
          names.entrySet().stream()
              .map(
                  n ->
                      n.getKey().equals(n.getValue())
                          ? n.getKey()
                          : n.getKey() + " as " + n.getValue())
              .toList());
    }
    e.models = new LinkedHashSet<>(names.values());
    synchronized (this) {
      scrapes++;
      skippedLines += body.badLines();
      byEngineModel.values().forEach(s -> missing.addAll(s.missing()));
    }
  }

  private void failed(Endpoint e, long sentMs, MetricsFetch.Failed f) {
    String message = wiring.secrets().redact(f.message());
    warnOnce(e, f.kind(), "engine metrics at " + e.printed + ": scrape failed: " + message);
    EngineSample failure =
        EngineSample.failed(
            e.deltas.endpoint(),
            e.mappingName(),
            1,
            TokenEventBounds.fit(message, EngineBounds.MAX_FAILURE_CHARS));
    for (String model : failureModels(e)) {
      publish(e, sentMs, model, failure);
    }
    synchronized (this) {
      failed++;
      lastFailure = message;
    }
  }

  /** The models a failed scrape is reported for: the engine's last ones, else the run's. */
  private Set<String> failureModels(Endpoint e) {
    if (!e.models.isEmpty()) {
      return e.models;
    }
    if (e.target.model() != null) {
      return Set.of(e.target.model());
    }
    if (!wiring.runModels().isEmpty()) {
      return new LinkedHashSet<>(wiring.runModels());
    }
    return Set.of(UNNAMED);
  }

  /**
   * The model an engine's series counts for: the run's model of that name; else, for an endpoint
   * that serves one model, the URL object's model or the run's only one (whatever the engine calls
   * it: served-model-name aliases); else the engine's own name ({@link #UNNAMED} without one).
   */
  static String modelFor(
      String engineModel, int engineModels, EngineSettings.Target target, List<String> runModels) {
    if (runModels.contains(engineModel)
        || target.model() != null && target.model().equals(engineModel)) {
      return engineModel;
    }
    if (engineModels == 1) {
      if (target.model() != null) {
        return target.model();
      }
      if (runModels.size() == 1) {
        return runModels.get(0);
      }
    }
    return engineModel.equals(EngineDeltas.UNLABELLED) ? UNNAMED : engineModel;
  }

  /**
   * Publishes a scrape's record once the token-event reader accepts it, the gate every reader of
   * the topic applies (so the aggregator never dead-letters what tpot wrote); a record it refuses
   * is published as a failed scrape saying why.
   */
  private void publish(Endpoint e, long ts, String model, EngineSample sample) {
    TokenEvent event = event(ts, model, sample);
    try {
      TokenEventCodec.decode(TokenEventCodec.encode(event));
    } catch (TokenEventFormatException refused) {
      String why =
          TokenEventBounds.fit(
              "its values break the engine event's bounds: " + refused.getMessage(),
              EngineBounds.MAX_FAILURE_CHARS);
      warnOnce(e, "refused", "engine metrics at " + e.printed + ": scrape left out, " + why);
      event = event(ts, model, EngineSample.failed(e.deltas.endpoint(), e.mappingName(), 1, why));
    }
    wiring.publish().accept(event);
  }

  private TokenEvent event(long ts, String model, EngineSample sample) {
    return TokenEvent.engine(
            ts, wiring.runId(), model, wiring.labels().get(), wiring.producerId(), sample)
        .withSource(wiring.source());
  }

  private void warnOnce(Endpoint e, String kind, String message) {
    if (e.warned.add(kind)) {
      LOG.warn("{} (later ones of this kind at DEBUG)", message);
    } else {
      LOG.debug("{}", message);
    }
  }

  /** What the scrapes came to so far (any thread). */
  public synchronized EngineScrapes summary() {
    return new EngineScrapes(
        endpoints.size(), scrapes, failed, lastFailure, List.copyOf(missing), skippedLines);
  }
}

package io.tpotstream.producer.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.engine.EngineSample;
import io.tpotstream.common.event.EngineBounds;
import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.secret.Secrets;
import io.tpotstream.producer.http.ClientTls;
import io.tpotstream.producer.testing.ExpositionServer;
import io.tpotstream.producer.testing.VllmBodies;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The scraper against a real HTTP server serving exposition text: on an injected clock, its scrapes
 * come 250 ms before each multiple of the interval and its events carry those times; failing
 * endpoints are reported, each in one line, while the others go on being read.
 */
class EngineScraperTest {
  private static final long T0 = 1_765_000_001_234L;

  /** A clock that jumps to each time waited for; the scraper stops after {@code waits} waits. */
  private static final class StepTicker implements EngineScraper.Ticker {
    long now;
    int waits;
    final int stopAfter;

    StepTicker(long now, int stopAfter) {
      this.now = now;
      this.stopAfter = stopAfter;
    }

    @Override
    public long nowMs() {
      return now;
    }

    @Override
    public boolean waitUntil(long atMs) {
      if (++waits > stopAfter) {
        return false;
      }
      now = atMs;
      return true;
    }
  }

  private static EngineScraper scraper(
      EngineSettings settings,
      Secrets secrets,
      List<String> runModels,
      List<TokenEvent> events,
      EngineScraper.Ticker ticker) {
    return new EngineScraper(
        new EngineScraper.Wiring(
            settings,
            ClientTls.DEFAULT,
            url -> Map.of("X-Scrape", "yes"),
            secrets,
            runModels,
            () -> new TreeMap<>(Map.of("concurrency", "4")),
            "r1",
            "p1",
            "producer",
            ticker::nowMs,
            events::add),
        ticker,
        ExpositionParser.Limits.DEFAULT);
  }

  private static EngineSettings settings(Duration interval, String... urls) {
    List<EngineSettings.Target> targets = new ArrayList<>();
    for (String u : urls) {
      targets.add(new EngineSettings.Target(URI.create(u), null, null));
    }
    return new EngineSettings(targets, interval, true);
  }

  @Test
  void scrapesComeAQuarterSecondBeforeEachMultipleOfTheIntervalAndTheLastAtTheStop()
      throws Exception {
    try (ExpositionServer server = new ExpositionServer()) {
      server.metrics(n -> VllmBodies.of("model-a", n).text());
      List<TokenEvent> events = new CopyOnWriteArrayList<>();
      StepTicker ticker = new StepTicker(T0, 3);
      EngineScraper scraper =
          scraper(
              settings(Duration.ofSeconds(5), server.url("/metrics")),
              Secrets.NONE,
              List.of("model-a"),
              events,
              ticker);
      scraper.runLoop(() -> false);

      assertEquals(
          List.of(
              T0, 1_765_000_004_750L, 1_765_000_009_750L, 1_765_000_014_750L, 1_765_000_014_750L),
          events.stream().map(TokenEvent::ts).toList());
      assertEquals(
          List.of(0L, 3_516L, 5_000L, 5_000L, 0L),
          events.stream().map(e -> e.engine().intervalMs()).toList());
      for (TokenEvent e : events) {
        assertEquals(EventType.ENGINE, e.type());
        assertEquals("model-a", e.model());
        assertEquals(Map.of("concurrency", "4"), e.labels());
      }
      assertEquals(
          "{\"type\":\"engine\",\"v\":1,\"ts\":1765000004750,\"runId\":\"r1\",\"model\":\"model-a\","
              + "\"labels\":{\"concurrency\":\"4\"},\"producerId\":\"p1\",\"source\":\"producer\","
              + "\"engine\":{\"endpoint\":\""
              + server.url("/metrics")
              + "\",\"mapping\":\"vllm\",\"intervalMs\":3516,\"scrapes\":1,\"failedScrapes\":0,"
              + "\"resets\":0,"
              + "\"tpot\":{\"leUs\":[10000,25000,50000],\"counts\":[3,120,4,0]},"
              + "\"ttft\":{\"leUs\":[40000,60000,80000,100000],\"counts\":[0,1,1,0,0]},"
              + "\"e2e\":{\"leUs\":[300000,500000,800000,1000000,1500000],"
              + "\"counts\":[0,0,0,1,1,0]},"
              + "\"queue\":{\"leUs\":[1000,10000],\"counts\":[2,0,0]},"
              + "\"running\":3.0,\"waiting\":0.0,\"kvCacheUsage\":0.12,"
              + "\"prefixQueries\":2048,\"prefixHits\":1024}}",
          TokenEventCodec.encodeToString(events.get(1)));
      assertEquals(List.of("yes"), server.headers().get(0).get("X-scrape"));
      assertEquals(new EngineScrapes(1, 5, 0, null, List.of(), 0), scraper.summary());
    }
  }

  @Test
  void theFirstScrapeWaitsForTheWarmupToEnd() throws Exception {
    try (ExpositionServer server = new ExpositionServer()) {
      server.metrics(n -> VllmBodies.of("model-a", n).text());
      List<TokenEvent> events = new CopyOnWriteArrayList<>();
      StepTicker ticker = new StepTicker(T0, 3);
      int[] polls = {0};
      scraper(
              settings(Duration.ofSeconds(5), server.url("/metrics")),
              Secrets.NONE,
              List.of("model-a"),
              events,
              ticker)
          .runLoop(() -> ++polls[0] <= 3);
      // three polls 50 ms apart, then the baseline; the stop came on the next wait
      assertEquals(List.of(T0 + 150, T0 + 150), events.stream().map(TokenEvent::ts).toList());
    }
  }

  @Test
  void theBaselineCompletesOnceItsRecordsAreHandedOnAndNotBefore() throws Exception {
    try (ExpositionServer server = new ExpositionServer()) {
      server.metrics(n -> VllmBodies.of("model-a", n).text());
      AtomicReference<EngineScraper> scraper = new AtomicReference<>();
      List<Boolean> baselineDoneAtPublish = new ArrayList<>();
      List<TokenEvent> events =
          new ArrayList<>() {
            @Override
            public boolean add(TokenEvent e) {
              baselineDoneAtPublish.add(scraper.get().baseline().isDone());
              return super.add(e);
            }
          };
      scraper.set(
          scraper(
              settings(Duration.ofSeconds(5), server.url("/metrics")),
              Secrets.NONE,
              List.of("model-a"),
              events,
              new StepTicker(T0, 1)));
      assertFalse(scraper.get().baseline().isDone());
      scraper.get().runLoop(() -> false);
      // the baseline's record, then the next scrape's and the last one's: a load that waits for
      // the baseline starts after its record, never before
      assertEquals(List.of(false, true, true), baselineDoneAtPublish);
      assertTrue(scraper.get().baseline().isDone());
    }
  }

  @Test
  void failingEndpointsAreReportedInOneLineEachWhileTheOthersAreRead() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    try (ExpositionServer server = new ExpositionServer()) {
      server
          .metrics(n -> VllmBodies.of("served-name", n).text())
          .fixed("/html", "<html>\n<body>hi</body>\n</html>\n")
          .fixed("/other", "process_cpu_seconds_total 1\n");
      String good = server.url("/metrics?token=s3cret-value");
      String refused = "http://127.0.0.1:" + closedPort + "/metrics";
      EngineSettings settings =
          settings(
              Duration.ofSeconds(1),
              refused,
              server.url("/status/500"),
              server.url("/slow"),
              server.url("/huge"),
              server.url("/html"),
              server.url("/other"),
              good);
      Secrets secrets = Secrets.builder().url(good).build();
      List<TokenEvent> events = new CopyOnWriteArrayList<>();
      EngineScraper scraper =
          scraper(settings, secrets, List.of("model-a"), events, new StepTicker(T0, 0));
      scraper.runLoop(() -> false);

      List<String> failures =
          events.stream()
              .map(TokenEvent::engine)
              .filter(s -> s.failure() != null)
              .map(s -> s.endpoint() + " " + s.failure())
              .toList();
      List<String> once =
          List.of(
              refused + " cannot connect to 127.0.0.1:" + closedPort + " (connection refused)",
              server.url("/status/500") + " HTTP 500",
              server.url("/slow") + " no answer within 1 s",
              server.url("/huge") + " body larger than 16 MiB",
              server.url("/html")
                  + " nothing readable in the body (3 unreadable lines): is it a Prometheus"
                  + " /metrics endpoint?",
              server.url("/other")
                  + " no vLLM, SGLang or TGI metric in the body: name the engine's metrics with"
                  + " --engine-mapping FILE");
      List<String> twice = new ArrayList<>(once);
      twice.addAll(once);
      assertEquals(twice, failures);
      for (TokenEvent e : events) {
        assertEquals("model-a", e.model()); // the run's one model, whatever the engine calls it
        if (e.engine().failure() != null) {
          EngineSample s = e.engine();
          assertEquals(0, s.scrapes());
          assertEquals(1, s.failedScrapes());
          assertEquals(0, s.intervalMs());
        }
      }
      List<EngineSample> read =
          events.stream().map(TokenEvent::engine).filter(s -> s.scrapes() == 1).toList();
      assertEquals(2, read.size());
      String masked = server.url("/metrics?token=***");
      assertEquals(masked, read.get(0).endpoint());
      assertTrue(
          events.stream().noneMatch(e -> TokenEventCodec.encodeToString(e).contains("s3cret")));
      assertEquals(
          new EngineScrapes(
              7,
              2,
              12,
              "no vLLM, SGLang or TGI metric in the body: name the engine's metrics with"
                  + " --engine-mapping FILE",
              List.of(),
              0),
          scraper.summary());
    }
  }

  @Test
  void aFailureOfAnEndpointPastTheRecordsBoundsIsPublishedWithinThem() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    // a URL of 900 characters: the records carry it cut to their bound, and every one is read back
    String refused = "http://127.0.0.1:" + closedPort + "/" + "p".repeat(870) + "/metrics";
    List<TokenEvent> events = new CopyOnWriteArrayList<>();
    scraper(
            settings(Duration.ofSeconds(1), refused),
            Secrets.builder().build(),
            List.of("model-a"),
            events,
            new StepTicker(T0, 0))
        .runLoop(() -> false);
    assertEquals(2, events.size()); // the baseline and the last scrape, both failed
    for (TokenEvent e : events) {
      assertEquals(e, TokenEventCodec.decode(TokenEventCodec.encode(e)));
      assertEquals(1, e.engine().failedScrapes());
      assertEquals(
          refused.substring(0, EngineBounds.MAX_ENDPOINT_CHARS - 1),
          e.engine().endpoint().substring(0, EngineBounds.MAX_ENDPOINT_CHARS - 1));
      assertTrue(e.engine().endpoint().length() <= EngineBounds.MAX_ENDPOINT_CHARS);
    }
  }

  @Test
  void aBodyThatGrowsPastItsBoundIsCutThere() throws Exception {
    try (ExpositionServer server = new ExpositionServer()) {
      List<TokenEvent> events = new CopyOnWriteArrayList<>();
      StepTicker ticker = new StepTicker(T0, 0);
      new EngineScraper(
              new EngineScraper.Wiring(
                  settings(Duration.ofSeconds(5), server.url("/huge-chunked")),
                  ClientTls.DEFAULT,
                  url -> Map.of(),
                  Secrets.NONE,
                  List.of("model-a"),
                  TreeMap::new,
                  "r1",
                  "p1",
                  "producer",
                  ticker::nowMs,
                  events::add),
              ticker,
              new ExpositionParser.Limits(64 << 10, 1024, 1000, 64))
          .runLoop(() -> false);
      assertEquals(
          List.of("body larger than 64 KiB", "body larger than 64 KiB"),
          events.stream().map(e -> e.engine().failure()).toList());
    }
  }

  @Test
  void eachEngineModelCountsForTheRunsModelOfThatNameOrTheOneItServes() {
    EngineSettings.Target plain =
        new EngineSettings.Target(URI.create("http://h/metrics"), null, null);
    EngineSettings.Target named =
        new EngineSettings.Target(URI.create("http://h/metrics"), "llama", null);
    assertEquals("a", EngineScraper.modelFor("a", 2, plain, List.of("a", "b")));
    assertEquals("alias", EngineScraper.modelFor("alias", 2, plain, List.of("a", "b")));
    assertEquals("a", EngineScraper.modelFor("/models/a-7b", 1, plain, List.of("a")));
    assertEquals("llama", EngineScraper.modelFor("/models/llama", 1, named, List.of("a", "b")));
    assertEquals("x", EngineScraper.modelFor("x", 1, plain, List.of("a", "b")));
    assertEquals("(unnamed)", EngineScraper.modelFor("", 1, plain, List.of()));
    assertEquals("llama", EngineScraper.modelFor("", 1, named, List.of()));
  }

  @Test
  void scrapeTimesAreTheMultiplesOfTheIntervalLessAQuarterSecond() {
    assertEquals(4_750, EngineScraper.nextScrapeMs(0, 5_000));
    assertEquals(9_750, EngineScraper.nextScrapeMs(4_750, 5_000));
    assertEquals(4_750, EngineScraper.nextScrapeMs(4_749, 5_000));
    assertEquals(1_765_000_009_750L, EngineScraper.nextScrapeMs(1_765_000_005_000L, 5_000));
    assertEquals(1_750, EngineScraper.nextScrapeMs(999, 1_000));
  }
}

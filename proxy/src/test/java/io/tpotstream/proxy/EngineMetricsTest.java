package io.tpotstream.proxy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.producer.engine.EngineScrapes;
import io.tpotstream.producer.engine.EngineSettings;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.producer.testing.ExpositionServer;
import io.tpotstream.producer.testing.VllmBodies;
import io.tpotstream.proxy.http.Upstream;
import io.tpotstream.testkit.LogCapture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code tpot proxy --engine-metrics}: the proxy scrapes the engine from its start, whether Kafka
 * is there or not, counts the scrapes in its own {@code /metrics} and says what they came to at its
 * end.
 */
class EngineMetricsTest {
  @Test
  void theProxyScrapesItsEngineCountsTheScrapesAndSaysSoAtItsEnd() throws Exception {
    try (ExpositionServer engine = new ExpositionServer();
        LogCapture log = LogCapture.begin()) {
      engine.metrics(n -> VllmBodies.of("m", n).text());
      TpotProxy proxy =
          TpotProxy.start(
              ProxyConfig.of(0, Upstream.parse("http://127.0.0.1:9"))
                  .withMetricsPort(0)
                  .withEventLoops(1)
                  .withEngineMetrics(
                      EngineSettings.ofFlags(
                          engine.url("/metrics") + "," + engine.url("/status/500"), "1s", "vllm")),
              KafkaSettings.of("127.0.0.1:9").withSetupTimeout(Duration.ofSeconds(1)));
      try {
        // the baseline was taken before the proxy listened: no request it measures is in it
        assertEquals(1, proxy.engineScrapes().scrapes(), "the baseline, before start returned");
        await().atMost(Duration.ofSeconds(10)).until(() -> proxy.engineScrapes().scrapes() >= 2);
        String metrics =
            HttpClient.newHttpClient()
                .send(
                    HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + proxy.metricsPort() + "/metrics"))
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .body();
        assertTrue(
            metrics.lines().anyMatch(l -> l.matches("tpot_proxy_engine_scrapes_total [1-9].*")),
            metrics);
        assertTrue(
            metrics
                .lines()
                .anyMatch(l -> l.matches("tpot_proxy_engine_scrape_failures_total [1-9].*")),
            metrics);
      } finally {
        proxy.close();
      }
      EngineScrapes end = proxy.engineScrapes();
      assertEquals(2, end.endpoints());
      assertEquals(end.scrapes(), end.failed(), "one of two endpoints fails each time");
      assertEquals("HTTP 500", end.lastFailure());
      List<String> lines = log.lines();
      assertTrue(lines.contains("io.tpotstream.proxy.TpotProxy " + end.line()), lines.toString());
      assertTrue(
          lines.contains(
              "io.tpotstream.producer.engine.EngineScraper engine metrics at "
                  + engine.url("/status/500")
                  + ": scrape failed: HTTP 500 (later ones of this kind at DEBUG)"),
          lines.toString());
    }
  }
}

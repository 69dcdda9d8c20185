package io.tpotstream.producer.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.producer.config.ConfigException;
import io.tpotstream.producer.config.ConfigLoader;
import io.tpotstream.producer.config.ProducerConfig;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code engine_metrics} in each of its forms (a string, a list of URLs, a list of objects), its
 * interval and mapping, read through the producer's config; mistakes refused in one line.
 */
class EngineSettingsTest {
  @TempDir Path dir;

  private ProducerConfig load(String... keyValues) throws IOException {
    Path file = dir.resolve("config.json");
    StringBuilder json =
        new StringBuilder("{\"base_url\": \"http://127.0.0.1:8000\", \"models\": [\"a\", \"b\"]");
    for (int i = 0; i < keyValues.length; i += 2) {
      json.append(", \"").append(keyValues[i]).append("\": ").append(keyValues[i + 1]);
    }
    Files.writeString(file, json.append('}'));
    return ConfigLoader.load(file, Map.of(), Map.of(), w -> {});
  }

  private String refused(String... keyValues) {
    return assertThrows(ConfigException.class, () -> load(keyValues)).getMessage();
  }

  @Test
  void noEngineMetricsByDefault() throws IOException {
    assertFalse(load().engineMetrics().enabled());
  }

  @Test
  void aStringOfUrlsAListOfUrlsOrAListOfObjects() throws IOException {
    EngineSettings s =
        load("engine_metrics", "\"http://h1:8000/metrics, http://h2:8000\"").engineMetrics();
    assertEquals(
        List.of(
            new EngineSettings.Target(URI.create("http://h1:8000/metrics"), null, null),
            new EngineSettings.Target(URI.create("http://h2:8000/metrics"), null, null)),
        s.targets());
    assertEquals(Duration.ofSeconds(5), s.interval());
    assertFalse(s.intervalGiven());

    s =
        load(
                "engine_metrics",
                "[\"http://h1/metrics\"]",
                "engine_mapping",
                "\"sglang\"",
                "engine_metrics_interval",
                "\"2s\"")
            .engineMetrics();
    assertEquals(EngineMapping.SGLANG, s.targets().get(0).mapping());
    assertEquals(Duration.ofSeconds(2), s.interval());
    assertTrue(s.intervalGiven());

    Files.writeString(dir.resolve("mine.json"), "{\"name\": \"mine\", \"tpot\": \"my_itl\"}");
    s =
        load(
                "engine_metrics",
                "[{\"url\": \"http://h1/metrics\", \"model\": \"a\", \"mapping\": \"vllm\"},"
                    + " {\"url\": \"https://h2/m\", \"model\": \"b\", \"mapping\": \"mine.json\"},"
                    + " \"http://h3/metrics\"]",
                "engine_mapping",
                "\"tgi\"")
            .engineMetrics();
    assertEquals(List.of("a", "b"), s.targets().stream().limit(2).map(t -> t.model()).toList());
    assertEquals(
        List.of("vllm", "mine", "tgi"), s.targets().stream().map(t -> t.mapping().name()).toList());
  }

  @Test
  void theFlagsOverrideTheKeys() {
    Map<String, String> flags = new LinkedHashMap<>();
    flags.put("base_url", "http://127.0.0.1:8000");
    flags.put("models", "a");
    flags.put("engine_metrics", "http://127.0.0.1:8000/metrics,http://127.0.0.1:30000/metrics");
    flags.put("engine_metrics_interval", "10s");
    flags.put("engine_mapping", "auto");
    EngineSettings s = ConfigLoader.load(null, flags, Map.of(), w -> {}).engineMetrics();
    assertEquals(2, s.targets().size());
    assertNull(s.targets().get(1).mapping());
    assertEquals(Duration.ofSeconds(10), s.interval());
  }

  @Test
  void mistakesAreRefusedInOneLineNamingTheKey() throws IOException {
    assertEquals(
        "config key 'engine_metrics': 'ftp://h/metrics' must be an http:// or https:// URL with a"
            + " host, e.g. http://127.0.0.1:8000/metrics",
        refused("engine_metrics", "\"ftp://h/metrics\""));
    assertEquals(
        "config key 'engine_metrics': 'http://h/ metrics' is not a URL",
        refused("engine_metrics", "\"http://h/ metrics\""));
    assertEquals(
        "config key 'engine_metrics[0]': 'http://***@h/metrics?k=***#***' must not have a #",
        refused("engine_metrics", "[\"http://u:pw@h/metrics?k=secret#x\"]"));
    assertEquals(
        "config key 'engine_metrics[1]': key 'modle' is not known (use url, model, mapping)",
        refused(
            "engine_metrics",
            "[\"http://h/metrics\", {\"url\": \"http://h2\", \"modle\": \"a\"}]"));
    assertEquals(
        "config key 'engine_metrics[0]': 'url' missing, or not a string",
        refused("engine_metrics", "[{\"model\": \"a\"}]"));
    assertEquals(
        "config key 'engine_metrics': must be a URL, a list of URLs or of objects {\"url\": ...,"
            + " \"model\": ..., \"mapping\": ...}, got number",
        refused("engine_metrics", "5"));
    assertEquals(
        "config key 'engine_metrics_interval': at least 1s (an engine's histograms change little"
            + " faster), got 500ms",
        refused("engine_metrics", "\"http://h/metrics\"", "engine_metrics_interval", "\"500ms\""));
    assertEquals(
        "config key 'engine_mapping' needs config key 'engine_metrics' (--engine-metrics URL)",
        refused("engine_mapping", "\"vllm\""));
    assertEquals(
        "config key 'engine_mapping': 'vllm.jsn' is neither vllm, sglang, tgi nor auto, and no such"
            + " file (a mapping file: docs/producer.md, \"The engine's own view\")",
        refused("engine_metrics", "\"http://h/metrics\"", "engine_mapping", "\"vllm.jsn\""));
    Files.writeString(dir.resolve("bad.json"), "{\"name\": \"x\"}");
    assertEquals(
        "engine mapping file "
            + dir.resolve("bad.json")
            + ": names no metric: give at least one of tpot, ttft, e2e, queue, running, waiting,"
            + " kv_cache_usage, prefix_queries, prefix_hits",
        refused("engine_metrics", "\"http://h/metrics\"", "engine_mapping", "\"bad.json\""));
  }

  @Test
  void theProxysFlagsTakeTheSameFormsAndNameTheFlags() {
    assertEquals(
        2,
        EngineSettings.ofFlags("http://h1/metrics,http://h2/metrics", null, null).targets().size());
    assertEquals(
        "m",
        EngineSettings.ofFlags("[{\"url\": \"http://h1/metrics\", \"model\": \"m\"}]", null, null)
            .targets()
            .get(0)
            .model());
    assertEquals(
        "--engine-metrics: 'h1:8000' must be an http:// or https:// URL with a host, e.g."
            + " http://127.0.0.1:8000/metrics",
        assertThrows(ConfigException.class, () -> EngineSettings.ofFlags("h1:8000", null, null))
            .getMessage());
    assertEquals(
        "--engine-metrics-interval: cannot read 'soon' as a duration (use e.g. 5s, 10s)",
        assertThrows(
                ConfigException.class,
                () -> EngineSettings.ofFlags("http://h/metrics", "soon", null))
            .getMessage());
    assertEquals(
        "--engine-metrics-interval needs --engine-metrics (--engine-metrics URL)",
        assertThrows(ConfigException.class, () -> EngineSettings.ofFlags(null, "2s", null))
            .getMessage());
  }

  @Test
  void tpotRunFitsTheIntervalToItsWindow() {
    EngineSettings byDefault = EngineSettings.ofFlags("http://h/metrics", null, null);
    assertEquals(Duration.ofSeconds(2), byDefault.forWindow(Duration.ofSeconds(2)).interval());
    assertEquals(Duration.ofSeconds(5), byDefault.forWindow(Duration.ofSeconds(60)).interval());
    EngineSettings ten = EngineSettings.ofFlags("http://h/metrics", "10s", null);
    assertEquals(
        "--engine-metrics-interval (10s) is longer than --window 5s: each window needs a scrape;"
            + " make it at most the window, ideally a divisor of it",
        assertThrows(ConfigException.class, () -> ten.forWindow(Duration.ofSeconds(5)))
            .getMessage());
    assertEquals(
        "--engine-metrics needs windows of at least 1s (engines are scraped at most once a second),"
            + " got --window 500ms",
        assertThrows(ConfigException.class, () -> byDefault.forWindow(Duration.ofMillis(500)))
            .getMessage());
    assertNull(byDefault.windowWarning(Duration.ofSeconds(10)));
    assertEquals(
        "engine metrics are scraped every 5s, which does not divide --window 7s: some scrape"
            + " intervals straddle two windows and count in the later one",
        byDefault.windowWarning(Duration.ofSeconds(7)));
    assertEquals(EngineSettings.NONE, EngineSettings.NONE.forWindow(Duration.ofMillis(1)));
  }
}

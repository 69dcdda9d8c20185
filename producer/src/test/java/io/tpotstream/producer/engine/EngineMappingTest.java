package io.tpotstream.producer.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tpotstream.producer.config.ConfigException;
import io.tpotstream.producer.testing.VllmBodies;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code auto} tells the engines apart by their names; a mapping file is read or refused in a line.
 */
class EngineMappingTest {
  @TempDir Path dir;

  private static Exposition body(String text) {
    return ExpositionParser.parse(
        text, EngineMapping.builtInNames()::contains, ExpositionParser.Limits.DEFAULT);
  }

  @Test
  void autoChoosesTheEngineWhoseMetricsTheBodyHolds() {
    assertEquals(EngineMapping.VLLM, EngineMapping.detect(body(VllmBodies.of("m", 1).text())));
    assertEquals(
        EngineMapping.SGLANG,
        EngineMapping.detect(
            body("sglang:num_running_reqs{model_name=\"m\"} 1\nsglang:token_usage 0.2\n")));
    assertEquals(
        EngineMapping.TGI,
        EngineMapping.detect(body("tgi_queue_size 0\ntgi_batch_current_size 1\n")));
    assertNull(EngineMapping.detect(body("process_cpu_seconds_total 1\nmy_ttft_bucket 2\n")));
  }

  @Test
  void namedTakesTheBuiltInsAutoOrAFile() throws IOException {
    assertEquals(EngineMapping.SGLANG, EngineMapping.named("SGLang", "k", dir));
    assertNull(EngineMapping.named("auto", "k", dir));
    assertNull(EngineMapping.named(null, "k", dir));
    Files.writeString(dir.resolve("mine.json"), "{\"name\":\"mine\",\"running\":\"my_running\"}");
    assertEquals("mine", EngineMapping.named("mine.json", "k", dir).name());
    assertEquals(
        "config key 'engine_mapping': 'vlm' is neither vllm, sglang, tgi nor auto, and no such"
            + " file (a mapping file: docs/producer.md, \"The engine's own view\")",
        assertThrows(
                ConfigException.class,
                () -> EngineMapping.named("vlm", "config key 'engine_mapping'", dir))
            .getMessage());
  }

  @Test
  void aMappingFileNamesAnyEnginesMetrics() throws IOException {
    Path file =
        Files.writeString(
            dir.resolve("my-engine.json"),
            """
            {"name": "my-engine", "model_label": "model", "unit": "milliseconds",
             "tpot": "my_itl_ms", "ttft": ["my_ttft_ms", "my_old_ttft_ms"],
             "running": "my_running", "prefix_queries": "my_queries", "prefix_hits": "my_hits"}
            """);
    EngineMapping m = EngineMapping.read(file);
    assertEquals(
        new EngineMapping(
            "my-engine",
            "model",
            EngineMapping.Unit.MILLISECONDS,
            List.of("my_itl_ms"),
            List.of("my_ttft_ms", "my_old_ttft_ms"),
            List.of(),
            List.of(),
            List.of("my_running"),
            List.of(),
            List.of(),
            List.of("my_queries"),
            List.of("my_hits")),
        m);
    // milliseconds bounds become µs
    EngineDeltas deltas = new EngineDeltas("u");
    String scrape =
        "my_itl_ms_bucket{model=\"x\",le=\"10\"} %d\nmy_itl_ms_bucket{model=\"x\",le=\"+Inf\"} %d\n";
    deltas.next(
        ExpositionParser.parse(
            String.format(scrape, 1, 2), m.allNames()::contains, ExpositionParser.Limits.DEFAULT),
        m,
        0);
    assertEquals(
        List.of(10_000L),
        deltas
            .next(
                ExpositionParser.parse(
                    String.format(scrape, 4, 9),
                    m.allNames()::contains,
                    ExpositionParser.Limits.DEFAULT),
                m,
                1_000)
            .get("x")
            .tpot()
            .leUs());
  }

  @Test
  void aBadMappingFileIsRefusedInOneLineNamingWhatIsWrong() throws IOException {
    assertRefused(
        "{\"name\": \"x\", \"tpot\": \"a\",", " is not valid JSON at line 1, column 27: ");
    assertRefused("[1]", " must hold one JSON object");
    assertRefused(
        "{\"name\": \"x\", \"tpt\": \"a\"}", ": key 'tpt' is not known (did you mean 'tpot'?)");
    assertRefused(
        "{\"tpot\": \"a\"}",
        ": key 'name' must be 1 to 64 letters, digits, '_', '.' or '-', e.g. my-engine");
    assertRefused(
        "{\"name\": \"x\", \"tpot\": \"my itl\"}",
        ": key 'tpot': 'my itl' is not a Prometheus metric name");
    assertRefused(
        "{\"name\": \"x\", \"tpot\": [\"a\", 3]}",
        ": key 'tpot': every entry must be a metric name, got 3");
    assertRefused(
        "{\"name\": \"x\", \"tpot\": \"a\", \"unit\": \"minutes\"}",
        ": key 'unit' must be seconds or milliseconds, got 'minutes'");
    assertRefused(
        "{\"name\": \"x\", \"model_label\": \"model-name\", \"tpot\": \"a\"}",
        ": key 'model_label': 'model-name' is not a Prometheus label name");
    assertRefused(
        "{\"name\": \"x\"}",
        ": names no metric: give at least one of tpot, ttft, e2e, queue, running, waiting,"
            + " kv_cache_usage, prefix_queries, prefix_hits");
    assertRefused(" ".repeat(70_000), ": larger than 64 KiB; is it a mapping?");
  }

  private void assertRefused(String text, String expected) throws IOException {
    Path file = Files.writeString(dir.resolve("m.json"), text);
    String message =
        assertThrows(ConfigException.class, () -> EngineMapping.read(file)).getMessage();
    String head = "engine mapping file " + file;
    assertEquals(
        head + expected,
        expected.endsWith(": ") ? message.substring(0, (head + expected).length()) : message);
    assertEquals(1, message.lines().count());
  }
}

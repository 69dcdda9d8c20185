package io.tpotstream.producer.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tpotstream.producer.config.ConfigException;
import io.tpotstream.producer.config.ConfigLoader;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.config.WarmupBudget;
import io.tpotstream.producer.dialect.Dialect;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The trace keys through the config loader, as a file and the flags give them. */
class TraceConfigTest {
  @TempDir Path dir;

  private Path trace() throws IOException {
    Path f = dir.resolve("t.jsonl");
    Files.writeString(
        f,
        "{\"timestamp\": 0, \"input_length\": 8, \"output_length\": 200, \"labels\": {\"app\":"
            + " \"chat\"}}\n"
            + "{\"timestamp\": 500, \"input_length\": 9, \"output_length\": 300}\n"
            + "{\"timestamp\": 900, \"input_length\": 9, \"output_length\": 500}\n");
    return f;
  }

  private ProducerConfig load(Map<String, String> keys, List<String> warnings) {
    Map<String, String> all = new LinkedHashMap<>();
    all.put("base_url", "http://h");
    all.put("models", "a");
    all.putAll(keys);
    return ConfigLoader.load(null, all, Map.of(), warnings::add);
  }

  private String refused(Map<String, String> keys) {
    return assertThrows(ConfigException.class, () -> load(keys, new ArrayList<>())).getMessage();
  }

  @Test
  void aTraceMakesAnUncappedOpenLoopBoundedByTheTrace() throws IOException {
    Path t = trace();
    Path config = dir.resolve("c.json");
    Files.writeString(
        config,
        "{\"base_url\": \"http://h\", \"models\": [\"a\"], \"trace\": \"t.jsonl\","
            + " \"trace_speed\": 2, \"max_tokens\": 64, \"total_requests\": 9}");
    List<String> warnings = new ArrayList<>();
    ProducerConfig c = ConfigLoader.load(config, Map.of(), Map.of(), warnings::add);
    assertEquals(t, c.trace().file().path(), "relative to the config file");
    assertEquals(2.0, c.trace().speed());
    assertTrue(c.openLoop());
    assertNull(c.concurrency());
    assertEquals("unbounded", c.labels().get("concurrency"));
    assertEquals(3, c.plannedRequests(), "the trace's requests, once");
    assertEquals(
        List.of(
            "config key(s) 'max_tokens', 'total_requests' are not used with a trace: its lines"
                + " give the requests, their prompts and their output lengths"),
        warnings);
    assertEquals(
        new WarmupBudget(Duration.ofSeconds(10), 100),
        WarmupBudget.of(c),
        "a tenth of the trace's 1,000 output tokens");
    ProducerConfig forever = load(Map.of("trace", t.toString(), "duration", "forever"), warnings);
    assertEquals(-1, forever.plannedRequests());
    ProducerConfig capped =
        load(
            Map.of("trace", t.toString(), "concurrency", "4", "trace_window", "0s-600ms"),
            warnings);
    assertEquals(4, capped.concurrency());
    assertEquals(2, capped.plannedRequests());
  }

  @Test
  void keysThatSayOtherwiseWhenOrWhatToSendAreRefusedWithATrace() throws IOException {
    String t = trace().toString();
    for (String key :
        List.of("rate", "schedule", "arrival", "sweep", "dataset", "input_len", "output_len")) {
      String value =
          switch (key) {
            case "rate" -> "2";
            case "schedule" -> "0s:1/s";
            case "arrival" -> "poisson";
            case "sweep" -> "concurrency=1,2";
            case "dataset" -> "sample";
            default -> "64";
          };
      assertEquals(
          "config keys 'trace' and '"
              + key
              + "' cannot be used together: the trace gives each request's start, prompt length"
              + " and output length; keep one",
          refused(Map.of("trace", t, key, value)),
          key);
    }
    assertEquals(
        "config key 'trace_window' needs config key 'trace' (--trace FILE)",
        refused(Map.of("trace_window", "1m-2m")));
    assertEquals(
        "config key 'trace': " + dir.resolve("none.jsonl") + " not found: check the path",
        refused(Map.of("trace", dir.resolve("none.jsonl").toString())));
    Map<String, String> twelve = new LinkedHashMap<>(Map.of("trace", t));
    for (int i = 0; i < 12; i++) {
      twelve.put("labels.l" + i, "v");
    }
    assertEquals(
        "config key 'trace': "
            + t
            + " has a line with 1 labels: with the config's 12 and the 4"
            + " tpot may add, a request would carry more than 16 (a token event's bound): drop"
            + " some from config key 'labels'",
        refused(twelve));
  }

  @Test
  void ignoreEosAsksVllmForExactlyTheLengthAndIsRefusedForAnthropic() {
    ProducerConfig c = load(Map.of("ignore_eos", "true", "max_tokens", "40"), new ArrayList<>());
    ObjectNode body = Dialect.of(c.api()).requestBody("a", c.prompts().messages(0), c);
    assertEquals(40, body.get("max_tokens").asInt());
    assertEquals(40, body.get("min_tokens").asInt());
    assertTrue(body.get("ignore_eos").asBoolean());
    ProducerConfig plain = load(Map.of(), new ArrayList<>());
    ObjectNode plainBody =
        Dialect.of(plain.api()).requestBody("a", plain.prompts().messages(0), plain);
    assertNull(plainBody.get("min_tokens"), "off by default: OpenAI's API refuses it");
    assertNull(plainBody.get("ignore_eos"));
    assertEquals(
        "config key 'ignore_eos': the Anthropic API takes neither min_tokens nor ignore_eos (its"
            + " max_tokens is a cap only): leave it out",
        refused(Map.of("ignore_eos", "true", "api", "anthropic")));
  }
}

package io.tpotstream.producer.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.producer.config.ConfigException;
import io.tpotstream.producer.config.ConfigLoader;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.traffic.Sweep;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The traffic keys through the config loader, as --set and the dedicated flags give them. */
class TrafficConfigTest {

  private static ProducerConfig load(Map<String, String> keys) {
    Map<String, String> all = new LinkedHashMap<>();
    all.put("base_url", "http://h");
    all.put("models", "a,b");
    all.putAll(keys);
    return ConfigLoader.load(null, all, Map.of(), w -> {});
  }

  @Test
  void aScheduleMakesAnOpenLoopThatEndsWithIt() {
    ProducerConfig c = load(Map.of("schedule", "0s:2/s,60s:5/s,120s:end"));
    assertTrue(c.openLoop());
    assertNull(c.concurrency(), "no cap unless given");
    assertEquals(Duration.ofSeconds(120), c.duration());
    assertEquals(5.0, c.rateSchedule().rateAt(61), 1e-9);
    assertEquals(
        "config keys 'schedule' and 'rate' both set the open-loop rate: keep one",
        assertThrows(ConfigException.class, () -> load(Map.of("schedule", "0s:2/s", "rate", "3")))
            .getMessage());
  }

  @Test
  void aSweepGivesEachStageItsLoadAndLabels() {
    ProducerConfig c = load(Map.of("sweep", "concurrency=1,4", "total_requests", "3"));
    assertEquals(12, c.plannedRequests(), "3 requests x 2 models x 2 stages");
    ProducerConfig stage = c.forStage(c.sweep().stages().get(1), false);
    assertEquals(4, stage.concurrency());
    assertEquals(Map.of("concurrency", "4", "stage", "concurrency-4"), stage.labels());
    assertNull(stage.sweep());
    assertEquals(6, stage.plannedRequests());
    ProducerConfig rates = load(Map.of("sweep", "rate=1,2"));
    assertTrue(rates.openLoop());
    ProducerConfig r2 = rates.forStage(rates.sweep().stages().get(1), false);
    assertEquals(2.0, r2.rate());
    assertEquals("rate-2", r2.labels().get(Sweep.LABEL));
  }

  @Test
  void syntheticLengthsAndDatasetsReplaceThePrompt() {
    ProducerConfig synthetic =
        load(Map.of("input_len", "100-200", "output_len", "lognormal:64,0.3", "seed", "5"));
    Turn t = synthetic.prompts().conversations().get(0).turns().get(0);
    assertTrue(t.inputTokens() >= 100 && t.inputTokens() <= 200);
    assertTrue(t.maxTokens() >= 1);
    assertTrue(synthetic.prompts().conversations().labelsInputLength());
    ProducerConfig sample = load(Map.of("dataset", "sample"));
    assertEquals(27, sample.prompts().size());
    assertEquals(
        "config key 'input_len' makes synthetic prompts, which replace 'dataset': keep one of them",
        assertThrows(
                ConfigException.class, () -> load(Map.of("dataset", "sample", "input_len", "10")))
            .getMessage());
    assertEquals(
        "config key 'output_len': cannot read 'many' as a length: write 256 (fixed), 128-1024"
            + " (uniform) or lognormal:512,0.6 (median, sigma), in tokens from 1 to 1000000",
        assertThrows(ConfigException.class, () -> load(Map.of("output_len", "many"))).getMessage());
  }
}

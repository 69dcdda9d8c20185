package io.tpotstream.producer.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tpotstream.common.engine.EngineHistogram;
import io.tpotstream.common.engine.EngineSample;
import io.tpotstream.producer.testing.VllmBodies;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Scrapes of known cumulative counts give exactly the deltas between them: per bucket, in µs
 * bounds; from zero, counted, after an engine restart; the metrics an endpoint lacks named.
 */
class EngineDeltasTest {
  private static final String URL = "http://127.0.0.1:8000/metrics";

  private static Exposition body(String text) {
    return ExpositionParser.parse(
        text, EngineMapping.builtInNames()::contains, ExpositionParser.Limits.DEFAULT);
  }

  private static EngineHistogram histogram(List<Long> leUs, List<Long> counts) {
    return new EngineHistogram(leUs, counts);
  }

  @Test
  void theFirstScrapeGivesGaugesOnlyAndTheNextTheExactDeltas() {
    EngineDeltas deltas = new EngineDeltas(URL);
    Map<String, EngineSample> first =
        deltas.next(body(VllmBodies.of("model-a", 1).text()), EngineMapping.VLLM, 1_000);
    assertEquals(
        Map.of(
            "model-a",
            new EngineSample(
                URL, "vllm", 0, 1, 0, null, List.of(), 0, null, null, null, null, 3.0, 0.0, 0.12,
                null, null)),
        first);
    Map<String, EngineSample> second =
        deltas.next(body(VllmBodies.of("model-a", 3).text()), EngineMapping.VLLM, 6_000);
    assertEquals(
        Map.of(
            "model-a",
            new EngineSample(
                URL,
                "vllm",
                5_000,
                1,
                0,
                null,
                List.of(),
                0,
                histogram(List.of(10_000L, 25_000L, 50_000L), List.of(6L, 240L, 8L, 0L)),
                histogram(
                    List.of(40_000L, 60_000L, 80_000L, 100_000L), List.of(0L, 2L, 2L, 0L, 0L)),
                histogram(
                    List.of(300_000L, 500_000L, 800_000L, 1_000_000L, 1_500_000L),
                    List.of(0L, 0L, 0L, 2L, 2L, 0L)),
                histogram(List.of(1_000L, 10_000L), List.of(4L, 0L, 0L)),
                3.0,
                0.0,
                0.12,
                4_096L,
                2_048L)),
        second);
  }

  @Test
  void countsBelowTheirLastValueAreARestartCountedFromZero() {
    EngineDeltas deltas = new EngineDeltas(URL);
    deltas.next(body(VllmBodies.of("model-a", 1).text()), EngineMapping.VLLM, 1_000);
    deltas.next(body(VllmBodies.of("model-a", 5).text()), EngineMapping.VLLM, 6_000);
    EngineSample restarted =
        deltas
            .next(body(VllmBodies.of("model-a", 2).text()), EngineMapping.VLLM, 11_000)
            .get("model-a");
    assertEquals(6, restarted.resets()); // four histograms, two counters
    assertEquals(List.of(6L, 240L, 8L, 0L), restarted.tpot().counts());
    assertEquals(List.of(4L, 0L, 0L), restarted.queue().counts());
    assertEquals(4_096L, restarted.prefixQueries());
    assertEquals(2_048L, restarted.prefixHits());
    // and the scrape after it is a plain delta again
    EngineSample after =
        deltas
            .next(body(VllmBodies.of("model-a", 3).text()), EngineMapping.VLLM, 16_000)
            .get("model-a");
    assertEquals(0, after.resets());
    assertEquals(List.of(3L, 120L, 4L, 0L), after.tpot().counts());
  }

  @Test
  void olderNamesAreReadAndWhatTheEndpointLacksIsNamed() {
    EngineDeltas deltas = new EngineDeltas(URL);
    String[] texts = new String[2];
    for (int k = 1; k <= 2; k++) {
      texts[k - 1] =
          new VllmBodies()
              .histogram(
                  "vllm:time_per_output_token_seconds",
                  "m",
                  VllmBodies.TPOT_LE,
                  VllmBodies.times(k, 3, 123, 127, 127))
              .histogram(
                  "vllm:time_to_first_token_seconds",
                  "m",
                  VllmBodies.TTFT_LE,
                  VllmBodies.times(k, 0, 1, 2, 2, 2))
              .histogram(
                  "vllm:e2e_request_latency_seconds",
                  "m",
                  VllmBodies.E2E_LE,
                  VllmBodies.times(k, 0, 0, 0, 1, 2, 2))
              .gauge("vllm:num_requests_running", "m", 2)
              .gauge("vllm:num_requests_waiting", "m", 1)
              .gauge("vllm:gpu_cache_usage_perc", "m", 0.5)
              .text();
    }
    deltas.next(body(texts[0]), EngineMapping.VLLM, 0);
    EngineSample s = deltas.next(body(texts[1]), EngineMapping.VLLM, 5_000).get("m");
    assertEquals(
        List.of(
            "vllm:request_queue_time_seconds",
            "vllm:prefix_cache_queries",
            "vllm:prefix_cache_hits"),
        s.missing());
    assertEquals(List.of(3L, 120L, 4L, 0L), s.tpot().counts());
    assertEquals(0.5, s.kvCacheUsage());
    assertEquals(null, s.queue());
    assertEquals(null, s.prefixQueries());
  }

  @Test
  void eachModelOfAnEndpointHasItsOwnDeltas() {
    EngineDeltas deltas = new EngineDeltas(URL);
    deltas.next(
        body(VllmBodies.of("a", 1).text() + VllmBodies.of("b", 2).text()), EngineMapping.VLLM, 0);
    Map<String, EngineSample> next =
        deltas.next(
            body(VllmBodies.of("a", 2).text() + VllmBodies.of("b", 5).text()),
            EngineMapping.VLLM,
            5_000);
    assertEquals(List.of("a", "b"), List.copyOf(next.keySet()));
    assertEquals(List.of(3L, 120L, 4L, 0L), next.get("a").tpot().counts());
    assertEquals(List.of(9L, 360L, 12L, 0L), next.get("b").tpot().counts());
  }

  @Test
  void anEngineWithoutAModelLabelIsOneUnlabelledModel() {
    String tgi1 =
        "tgi_request_mean_time_per_token_duration_bucket{le=\"0.01\"} 4\n"
            + "tgi_request_mean_time_per_token_duration_bucket{le=\"+Inf\"} 5\n"
            + "tgi_queue_size 2\ntgi_batch_current_size 7\n";
    String tgi2 =
        "tgi_request_mean_time_per_token_duration_bucket{le=\"0.01\"} 6\n"
            + "tgi_request_mean_time_per_token_duration_bucket{le=\"+Inf\"} 9\n"
            + "tgi_queue_size 0\ntgi_batch_current_size 8\n";
    EngineDeltas deltas = new EngineDeltas(URL);
    deltas.next(body(tgi1), EngineMapping.TGI, 0);
    EngineSample s = deltas.next(body(tgi2), EngineMapping.TGI, 2_000).get(EngineDeltas.UNLABELLED);
    assertEquals(histogram(List.of(10_000L), List.of(2L, 2L)), s.tpot());
    assertEquals(8.0, s.running());
    assertEquals(0.0, s.waiting());
    assertEquals(List.of("tgi_request_duration", "tgi_request_queue_duration"), s.missing());
  }

  @Test
  void boundsOutsideARecordsRangeMergeIntoTheNextBucketAndLoseNoObservation() {
    // vLLM's e2e ends at 7,680 s, past a record's largest bound (a day is fine, two are not), and
    // a mapping may give le="0": both go to the bucket after them, as cumulative counts allow
    String scrape =
        """
        # TYPE vllm:e2e_request_latency_seconds histogram
        vllm:e2e_request_latency_seconds_bucket{model_name="m",le="0"} %d
        vllm:e2e_request_latency_seconds_bucket{model_name="m",le="1.0"} %d
        vllm:e2e_request_latency_seconds_bucket{model_name="m",le="7680.0"} %d
        vllm:e2e_request_latency_seconds_bucket{model_name="m",le="172800.0"} %d
        vllm:e2e_request_latency_seconds_bucket{model_name="m",le="+Inf"} %d
        """;
    EngineDeltas deltas = new EngineDeltas(URL);
    deltas.next(body(scrape.formatted(0, 0, 0, 0, 0)), EngineMapping.VLLM, 1_000);
    EngineSample s =
        deltas.next(body(scrape.formatted(1, 3, 6, 8, 9)), EngineMapping.VLLM, 2_000).get("m");
    assertEquals(histogram(List.of(1_000_000L, 7_680_000_000L), List.of(3L, 3L, 3L)), s.e2e());
  }

  @Test
  void whatAppearsAfterAnEmptyAnswerStartedSinceAndCountsFromZero() {
    // the simulator, like an engine that has served nothing yet, answers with no samples at first
    EngineDeltas deltas = new EngineDeltas(URL);
    deltas.answeredEmpty(1_000);
    EngineSample s =
        deltas
            .next(body(VllmBodies.of("model-a", 2).text()), EngineMapping.VLLM, 6_000)
            .get("model-a");
    assertEquals(5_000, s.intervalMs());
    assertEquals(0, s.resets());
    assertEquals(List.of(6L, 240L, 8L, 0L), s.tpot().counts()); // all of it, since the empty answer
    EngineDeltas fromTwoScrapes = new EngineDeltas(URL);
    fromTwoScrapes.next(body(VllmBodies.of("model-a", 0).text()), EngineMapping.VLLM, 0);
    EngineSample same =
        fromTwoScrapes
            .next(body(VllmBodies.of("model-a", 2).text()), EngineMapping.VLLM, 5_000)
            .get("model-a");
    assertEquals(same.tpot(), s.tpot());
    assertEquals(same.ttft(), s.ttft());
    assertEquals(same.prefixQueries(), s.prefixQueries());
  }

  @Test
  void moreBoundsThanARecordHoldsAreThinnedLosingNoObservation() {
    // 200 bounds of 1..200 ms, one observation at each: every 4th from the last is kept (50, no
    // more than 64), each holding the 4 observations up to it
    java.util.TreeMap<Long, Long> buckets = new java.util.TreeMap<>();
    for (long ms = 1; ms <= 200; ms++) {
      buckets.put(ms * 1_000, ms); // cumulative
    }
    EngineDeltas.thin(buckets, 64);
    assertEquals(50, buckets.size());
    assertEquals(200_000L, buckets.lastKey());
    assertEquals(4_000L, buckets.firstKey());
    assertEquals(4L, buckets.firstEntry().getValue());
    assertEquals(200L, buckets.lastEntry().getValue());
  }
}

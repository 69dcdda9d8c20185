package io.tpotstream.aggregator.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.aggregator.AggregatorConfig;
import io.tpotstream.aggregator.partial.Metric;
import io.tpotstream.aggregator.partial.SeriesName;
import io.tpotstream.aggregator.partial.WindowCounts;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.common.stats.HistogramCodec;
import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import java.math.BigDecimal;
import java.util.List;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;

/**
 * Stage 2 in the test driver, fed synthetic partials and markers from three input partitions
 * through its internal topic (the driver gives every topic one partition, so stage 1 cannot).
 */
class MergeStageTest {
  static final long T0 = 1_700_000_000_000L;
  static final long W = 10_000;

  private final AggregatorConfig config =
      AggregatorConfig.defaults("unused:9092")
          .withApplicationId("merge-test")
          .withStage(StageSettings.defaults())
          .withInputPartitions(3);

  @Test
  void aWindowWaitsForTheSlowestPartitionsMarker() {
    try (TopologyTestDriver driver = driver()) {
      TestInputTopic<byte[], StageMessage> partials = partialsTopic(driver);
      TestOutputTopic<String, byte[]> out = summariesTopic(driver);

      partials.pipeInput(new byte[0], partial(0, "model-a", T0, 1_000, 2_000));
      partials.pipeInput(new byte[0], partial(1, "model-a", T0, 3_000));
      partials.pipeInput(new byte[0], partial(2, "model-b", T0, 5_000));
      partials.pipeInput(new byte[0], StageMessage.marker(0, T0 + W));
      partials.pipeInput(new byte[0], StageMessage.marker(1, T0 + 3 * W));
      partials.pipeInput(new byte[0], partial(0, "model-a", T0 + W, 7_000));
      partials.pipeInput(new byte[0], StageMessage.marker(0, T0 + 2 * W));
      assertTrue(out.isEmpty(), "partition 2 has not closed the first window yet");

      partials.pipeInput(new byte[0], StageMessage.marker(2, T0 + W));

      List<WindowSummary> first = summaries(out);
      assertEquals(
          List.of("model-a", "model-b"), first.stream().map(WindowSummary::series).toList());
      WindowSummary a = first.get(0);
      assertEquals(3, a.tpot().count(), "partials of partitions 0 and 1 merged");
      assertEquals(new BigDecimal("3.001"), a.tpot().maxMs()); // 2 µs buckets above 2 ms
      LatencyHistogram expected = new LatencyHistogram();
      List.of(1_000L, 2_000L, 3_000L).forEach(expected::recordMicros);
      assertEquals(expected, HistogramCodec.decode(a.histograms().tpot()));
      assertEquals(1, first.get(1).tpot().count());

      assertTrue(out.isEmpty(), "the second window still waits for partition 2");

      partials.pipeInput(new byte[0], StageMessage.marker(2, T0 + 2 * W));

      List<WindowSummary> second = summaries(out);
      assertEquals(1, second.size());
      assertEquals(T0 + W, second.get(0).windowStartMs());
      assertEquals(1, second.get(0).tpot().count());
    }
  }

  @Test
  void theSecondWindowIsEmittedOnceEveryPartitionPassedIt() {
    try (TopologyTestDriver driver = driver()) {
      TestInputTopic<byte[], StageMessage> partials = partialsTopic(driver);
      TestOutputTopic<String, byte[]> out = summariesTopic(driver);
      partials.pipeInput(new byte[0], partial(1, "model-a", T0 + W, 4_000));
      for (int p = 0; p < 3; p++) {
        partials.pipeInput(new byte[0], StageMessage.marker(p, T0 + W));
      }
      assertTrue(out.isEmpty(), "no data in the first window: nothing to emit");
      partials.pipeInput(new byte[0], StageMessage.marker(0, T0 + 2 * W));
      partials.pipeInput(new byte[0], StageMessage.marker(1, T0 + 2 * W));
      assertTrue(out.isEmpty());
      partials.pipeInput(new byte[0], StageMessage.marker(2, T0 + 5 * W));
      List<WindowSummary> second = summaries(out);
      assertEquals(1, second.size());
      assertEquals(T0 + W, second.get(0).windowStartMs());

      // a partial for a window already emitted is dropped, never emitted twice
      partials.pipeInput(new byte[0], partial(2, "model-a", T0 + W, 9_000));
      for (int p = 0; p < 3; p++) {
        partials.pipeInput(new byte[0], StageMessage.marker(p, T0 + 6 * W));
      }
      assertTrue(out.isEmpty());
    }
  }

  private TopologyTestDriver driver() {
    return new TopologyTestDriver(
        AggregatorTopology.buildTopology(config), AggregatorTopology.streamsProperties(config));
  }

  private TestOutputTopic<String, byte[]> summariesTopic(TopologyTestDriver driver) {
    return driver.createOutputTopic(
        config.outputTopic(), new StringDeserializer(), new ByteArrayDeserializer());
  }

  private TestInputTopic<byte[], StageMessage> partialsTopic(TopologyTestDriver driver) {
    Serializer<StageMessage> values = new StageMessageSerde.Writer();
    return driver.createInputTopic(
        config.applicationId() + "-" + AggregatorTopology.PARTIALS_TOPIC + "-repartition",
        new ByteArraySerializer(),
        values);
  }

  private static StageMessage partial(int partition, String series, long start, long... gapsUs) {
    WindowCounts counts = new WindowCounts();
    for (long g : gapsUs) {
      counts.latency(Metric.TPOT, g, 1);
    }
    // through the serde, as on the internal topic
    StageMessage m =
        StageMessage.partial(partition, start, new SeriesName(series, series, null), counts);
    return new StageMessageSerde.Reader()
        .deserialize("t", new StageMessageSerde.Writer().serialize("t", m));
  }

  private static List<WindowSummary> summaries(TestOutputTopic<String, byte[]> out) {
    return out.readValuesToList().stream().map(WindowSummaryCodec::decode).toList();
  }
}

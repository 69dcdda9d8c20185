package io.tpotstream.aggregator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tpotstream.aggregator.fixtures.SyntheticLoad;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * How many events per second the aggregator sustains on the embedded broker, over about a million
 * events. Not part of the suite: run with {@code -Dtpot.bench=true
 * -Dtest=AggregatorThroughputBench}.
 */
@ExtendWith(KafkaExtension.class)
@EnabledIfSystemProperty(named = "tpot.bench", matches = "true")
class AggregatorThroughputBench {
  @TempDir Path stateDir;

  /** The state dir, plus any {@code -Dtpot.bench.props=k=v,k=v} to try. */
  private Map<String, String> props() {
    Map<String, String> props = new java.util.TreeMap<>();
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    String extra = System.getProperty("tpot.bench.props", "");
    for (String kv : extra.split(",")) {
      if (kv.contains("=")) {
        props.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
      }
    }
    return props;
  }

  @Test
  void aMillionEvents(TestKafka kafka) {
    int requests = Integer.getInteger("tpot.bench.requests", 30_000);
    // ~10,000 events per second of event time: about 100 streams of 100 tokens/s
    long spacingMs = Long.getLong("tpot.bench.spacingMs", 3);
    List<TokenEvent> events = SyntheticLoad.events(7, 1_700_000_000_000L, requests, spacingMs);
    String topic = TestKafka.uniqueName("bench-events");
    kafka.createTopic(topic, 3, Map.of("retention.ms", "-1"));
    long t = System.nanoTime();
    SyntheticLoad.publish(kafka.producerProps(), topic, 3, events, -1);
    System.out.printf(
        "published %d events in %.1f s%n", events.size(), (System.nanoTime() - t) / 1e9);
    long gaps = SyntheticLoad.gaps(events, "model-a") + SyntheticLoad.gaps(events, "model-b");

    String id = TestKafka.uniqueName("bench");
    AggregatorConfig config =
        AggregatorConfig.defaults(kafka.bootstrapServers())
            .withTopics(topic, id + "-summaries", id + "-dead")
            .withApplicationId(id)
            .withStage(StageSettings.defaults())
            .withProcessingGuarantee(
                System.getProperty("tpot.bench.guarantee", StreamsConfig.EXACTLY_ONCE_V2))
            .withKafkaProperties(props());
    long[] tpot = {0};
    long start = System.nanoTime();
    long[] ended = {0};
    long streamCpuNs = 0;
    long[] running = {0};
    try (Aggregator aggregator = Aggregator.start(config);
        KafkaConsumer<String, byte[]> consumer =
            new KafkaConsumer<>(kafka.consumerProps(id + "-reader"))) {
      consumer.subscribe(List.of(config.outputTopic()));
      await()
          .atMost(Duration.ofMinutes(10))
          .pollInterval(Duration.ofMillis(10))
          .until(
              () -> {
                if (running[0] == 0 && aggregator.isRunning()) {
                  running[0] = System.nanoTime();
                }
                consumer
                    .poll(Duration.ofMillis(100))
                    .forEach(
                        r -> {
                          WindowSummary s = WindowSummaryCodec.decode(r.value());
                          tpot[0] += s.tpot().count();
                        });
                return tpot[0] >= gaps;
              });
      ended[0] = System.nanoTime();
      var threads = java.lang.management.ManagementFactory.getThreadMXBean();
      for (var info : threads.getThreadInfo(threads.getAllThreadIds())) {
        if (info != null && info.getThreadName().contains("StreamThread")) {
          streamCpuNs += threads.getThreadCpuTime(info.getThreadId());
        }
      }
    }
    long end = ended[0];
    assertEquals(gaps, tpot[0]);
    double fromStart = (end - start) / 1e9;
    double fromRunning = (end - running[0]) / 1e9;
    System.out.printf("with %s%n", props());
    System.out.printf(
        "stream thread CPU %.1f s (measured before close): %.0f events per CPU-second%n",
        streamCpuNs / 1e9, events.size() / (streamCpuNs / 1e9));
    System.out.printf(
        "aggregated %d events (%s): %.1f s from start = %.0f events/s; %.1f s once running ="
            + " %.0f events/s%n",
        events.size(),
        config.processingGuarantee(),
        fromStart,
        events.size() / fromStart,
        fromRunning,
        events.size() / fromRunning);
  }
}

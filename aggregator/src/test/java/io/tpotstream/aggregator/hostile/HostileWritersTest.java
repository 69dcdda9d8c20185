package io.tpotstream.aggregator.hostile;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.aggregator.Aggregator;
import io.tpotstream.aggregator.AggregatorConfig;
import io.tpotstream.aggregator.fixtures.Req;
import io.tpotstream.aggregator.fixtures.SyntheticLoad;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.aggregator.topology.EndOffsetWatch;
import io.tpotstream.common.Topics;
import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A healthy producer beside buggy and hostile writers on a topic tpot created (the broker's append
 * time): every healthy gap lands in exactly one summary, none late, the aggregator keeps running,
 * and a recount with a new application id gives the same bytes.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class HostileWritersTest {
  @TempDir static Path stateDir;

  @Test
  void hostileWritersBlindNothingAndARecountEqualsTheLiveRun(TestKafka kafka) throws Exception {
    String topic = TestKafka.uniqueName("hostile");
    kafka.createTopic(topic, 3, Topics.TOKEN_EVENTS_CONFIG);
    long now = System.currentTimeMillis();
    long t0 = now - now % 10_000 - 60_000; // a minute ago, on a window boundary
    List<TokenEvent> healthy = SyntheticLoad.events(7, t0, 100);
    List<TokenEvent> healthyButFinal = healthy.subList(0, healthy.size() - 1);
    TokenEvent healthyFinal = healthy.get(healthy.size() - 1);

    List<ProducerRecord<String, byte[]>> hostile = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      // a producer whose clock is in 1970, and one at the edge of a long
      hostile.add(heartbeat(topic, p, Req.heartbeat(now, "p-1970", 1)));
      hostile.add(heartbeat(topic, p, Req.heartbeat(now, "p-1970", 1)));
      hostile.add(heartbeat(topic, p, Req.heartbeat(now, "p-edge", Long.MAX_VALUE)));
    }
    // a start event whose model is 400 KB
    Req huge = new Req("huge", "m".repeat(400_000), Map.of(), "p-huge");
    hostile.add(new ProducerRecord<>(topic, null, "huge", TokenEventCodec.encode(huge.start(now))));
    // a producer whose clock runs two minutes fast, with a request in its future windows
    Req fast = new Req("fast-r", "model-a", Map.of(), "p-fast");
    for (int p = 0; p < 3; p++) {
      hostile.add(heartbeat(topic, p, Req.heartbeat(now + 120_000, "p-fast", now + 119_800)));
    }
    hostile.add(record(topic, fast.start(now + 120_000)));
    hostile.add(record(topic, fast.token(now + 120_100, 100_000_000L)));

    List<ProducerRecord<String, byte[]>> all = new ArrayList<>();
    int half = healthyButFinal.size() / 2;
    for (int i = 0; i < healthyButFinal.size(); i++) {
      all.addAll(records(topic, healthyButFinal.get(i)));
      if (i == half) {
        all.addAll(hostile);
      }
    }
    all.addAll(records(topic, healthyFinal));
    send(kafka, all);

    long gaps = SyntheticLoad.gaps(healthy, "model-a") + SyntheticLoad.gaps(healthy, "model-b");
    long last = healthyFinal.ts() - healthyFinal.ts() % 10_000; // the healthy run's last window
    List<String> live;
    try (Aggregator aggregator = Aggregator.start(config(kafka, topic, "live"))) {
      live = healthySummaries(kafka, aggregator.config().outputTopic(), last, gaps);
      assertTrue(aggregator.isRunning() || !aggregator.stopped().isDone());
      assertEquals(3 * 3 + 1, deadLetters(kafka, aggregator.config().deadLetterTopic(), 10));
    }
    try (Aggregator recount = Aggregator.start(config(kafka, topic, "recount"))) {
      assertEquals(live, healthySummaries(kafka, recount.config().outputTopic(), last, gaps));
      assertFalse(recount.stopped().isDone());
    }
  }

  @Test
  void theWatchConfirmsASilenceOnlyWhenTheBrokerSaysAllWasRead(TestKafka kafka) throws Exception {
    String topic = TestKafka.uniqueName("watched");
    String group = TestKafka.uniqueName("watching");
    kafka.createTopic(topic, 1, Map.of());
    Req r = new Req("r1", "model-a");
    for (int i = 0; i < 3; i++) {
      send(kafka, List.of(record(topic, r.start(System.currentTimeMillis()))));
    }
    TopicPartition tp = new TopicPartition(topic, 0);
    try (EndOffsetWatch watch = new EndOffsetWatch(kafka.admin(), topic, 1, group);
        Admin committer = kafka.admin()) {
      committer.alterConsumerGroupOffsets(group, Map.of(tp, new OffsetAndMetadata(1))).all().get();
      // two records unread (one more could be a transaction's marker): never confirmed
      await()
          .during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(6))
          .until(() -> watch.confirmedAtMs(0, -1) == Long.MIN_VALUE);
      long before = System.currentTimeMillis();
      committer.alterConsumerGroupOffsets(group, Map.of(tp, new OffsetAndMetadata(3))).all().get();
      await().atMost(Duration.ofSeconds(10)).until(() -> watch.confirmedAtMs(0, -1) >= before);
      long first = watch.confirmedAtMs(0, -1);
      // a second apart: the stages count the time between two answers
      await().atMost(Duration.ofSeconds(10)).until(() -> watch.confirmedAtMs(0, -1) > first);
      assertEquals(Long.MIN_VALUE, watch.confirmedAtMs(1, -1), "no such partition");
      // a task that read further than its group committed (commits far apart) counts what it read
      committer.alterConsumerGroupOffsets(group, Map.of(tp, new OffsetAndMetadata(0))).all().get();
      long reset = System.currentTimeMillis();
      await().atMost(Duration.ofSeconds(10)).until(() -> watch.confirmedAtMs(0, 3) >= reset);
      assertEquals(Long.MIN_VALUE, watch.confirmedAtMs(0, 1));
    }
  }

  private static ProducerRecord<String, byte[]> heartbeat(String topic, int p, TokenEvent e) {
    return new ProducerRecord<>(topic, p, null, e.producerId(), TokenEventCodec.encode(e));
  }

  private static ProducerRecord<String, byte[]> record(String topic, TokenEvent e) {
    return new ProducerRecord<>(topic, null, e.requestId(), TokenEventCodec.encode(e));
  }

  /** As a producer writes it: a heartbeat to every partition, any other event by request id. */
  private static List<ProducerRecord<String, byte[]>> records(String topic, TokenEvent e) {
    if (e.type() != EventType.HEARTBEAT) {
      return List.of(record(topic, e));
    }
    List<ProducerRecord<String, byte[]>> beats = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      beats.add(heartbeat(topic, p, e));
    }
    return beats;
  }

  private static void send(TestKafka kafka, List<ProducerRecord<String, byte[]>> records)
      throws Exception {
    Properties props = new Properties();
    props.putAll(kafka.producerProps());
    props.put("max.in.flight.requests.per.connection", "1");
    props.put("max.request.size", "2000000");
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(props)) {
      List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
      for (ProducerRecord<String, byte[]> r : records) {
        sent.add(producer.send(r));
      }
      producer.flush();
      for (java.util.concurrent.Future<?> f : sent) {
        f.get();
      }
    }
  }

  private static AggregatorConfig config(TestKafka kafka, String input, String name) {
    String id = TestKafka.uniqueName(name);
    Map<String, String> properties = new HashMap<>();
    properties.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.resolve(id).toString());
    return AggregatorConfig.defaults(kafka.bootstrapServers())
        .withTopics(input, id + "-summaries", id + "-dead-letters")
        .withApplicationId(id)
        .withStage(StageSettings.defaults())
        .withKafkaProperties(properties);
  }

  /**
   * The summaries of windows up to the one starting at {@code lastMs}, once it came (stage 2 emits
   * windows in order), with exactly {@code gaps} gaps and none late.
   */
  private static List<String> healthySummaries(
      TestKafka kafka, String topic, long lastMs, long gaps) {
    List<String> json =
        kafka
            .readUntil(
                topic,
                Duration.ofSeconds(90),
                read -> read.stream().anyMatch(s -> startMs(s) == lastMs))
            .stream()
            .filter(s -> startMs(s) <= lastMs)
            .toList();
    assertEquals(gaps, count(json, w -> w.tpot().count()), "every healthy gap, once");
    assertEquals(0, count(json, WindowSummary::lateSamples), "none late");
    return json;
  }

  private static long startMs(String summary) {
    return WindowSummaryCodec.decode(summary).windowStartMs();
  }

  private static long count(
      List<String> json, java.util.function.ToLongFunction<WindowSummary> what) {
    return json.stream().map(WindowSummaryCodec::decode).mapToLong(what).sum();
  }

  private static int deadLetters(TestKafka kafka, String topic, int expected) {
    return kafka.readUntil(topic, Duration.ofSeconds(30), read -> read.size() >= expected).size();
  }
}

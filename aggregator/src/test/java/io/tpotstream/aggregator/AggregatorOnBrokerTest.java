package io.tpotstream.aggregator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.aggregator.fixtures.Req;
import io.tpotstream.aggregator.fixtures.SyntheticLoad;
import io.tpotstream.aggregator.offline.OfflineStats;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.aggregator.stage2.PartitionsChangedException;
import io.tpotstream.aggregator.topology.DeadLetterHeaders;
import io.tpotstream.common.Windows;
import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The aggregator against a real broker: synthetic events published as a producer does into a
 * 3-partition topic give summaries equal to the offline statistics over the same events, whatever
 * the application id or partition count.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class AggregatorOnBrokerTest {
  static final long T0 = 1_700_000_000_000L;
  static final StageSettings SETTINGS =
      StageSettings.defaults().withGroupBy(List.of("concurrency"));

  static List<TokenEvent> events;
  static List<String> offline;
  static String threePartitions;
  static RecordMetadata poison;

  @TempDir static Path stateDir;

  @BeforeAll
  static void publishEvents(TestKafka kafka) {
    events = SyntheticLoad.events(42, T0, 400);
    offline = offline(events);
    threePartitions = TestKafka.uniqueName("events-3p");
    kafka.createTopic(threePartitions, 3, Map.of("retention.ms", "-1"));
    poison =
        SyntheticLoad.publish(kafka.producerProps(), threePartitions, 3, events, events.size() / 2);
  }

  @Test
  void summariesEqualTheGapsInTheEventsAndTheOfflineStatistics(TestKafka kafka) {
    AggregatorConfig config = config(kafka, threePartitions, "agg-a");
    try (Aggregator aggregator = Aggregator.start(config)) {
      assertEquals(3, aggregator.config().inputPartitions());
      List<String> json = readSummaries(kafka, config.outputTopic(), offline.size());

      List<WindowSummary> summaries = json.stream().map(WindowSummaryCodec::decode).toList();
      for (String model : List.of("model-a", "model-b")) {
        long tpot =
            summaries.stream()
                .filter(s -> s.model().equals(model))
                .mapToLong(s -> s.tpot().count())
                .sum();
        assertEquals(SyntheticLoad.gaps(events, model), tpot, model + ": one sample per gap");
      }
      Set<String> seen = new HashSet<>();
      for (WindowSummary s : summaries) {
        assertTrue(seen.add(s.series() + "@" + s.windowStartMs()), "twice: " + s.series());
        assertNotNull(s.histograms().tpot());
      }
      assertEquals(offline, json, "the offline statistics over the same events, byte for byte");

      List<ConsumerRecord<byte[], byte[]>> dead = readDeadLetters(kafka, config.deadLetterTopic());
      assertEquals(1, dead.size());
      ConsumerRecord<byte[], byte[]> d = dead.get(0);
      assertEquals("poison-key", new String(d.key(), StandardCharsets.UTF_8));
      assertEquals("not a token event", new String(d.value(), StandardCharsets.UTF_8));
      assertEquals(threePartitions, header(d, DeadLetterHeaders.SOURCE_TOPIC));
      assertEquals("" + poison.partition(), header(d, DeadLetterHeaders.SOURCE_PARTITION));
      assertEquals("" + poison.offset(), header(d, DeadLetterHeaders.SOURCE_OFFSET));
      assertTrue(header(d, DeadLetterHeaders.REASON).startsWith("not a token event"));
    }
  }

  @Test
  void anotherApplicationIdAndAnotherPartitionCountGiveIdenticalSummaries(TestKafka kafka) {
    String fivePartitions = TestKafka.uniqueName("events-5p");
    kafka.createTopic(fivePartitions, 5, Map.of("retention.ms", "-1"));
    SyntheticLoad.publish(kafka.producerProps(), fivePartitions, 5, events, -1);
    AggregatorConfig sameTopic = config(kafka, threePartitions, "agg-b");
    AggregatorConfig otherTopic = config(kafka, fivePartitions, "agg-c");
    try (Aggregator b = Aggregator.start(sameTopic);
        Aggregator c = Aggregator.start(otherTopic)) {
      assertEquals(5, c.config().inputPartitions());
      assertEquals(offline, readSummaries(kafka, sameTopic.outputTopic(), offline.size()));
      assertEquals(offline, readSummaries(kafka, otherTopic.outputTopic(), offline.size()));
    }
  }

  @Test
  void aChangedPartitionCountStopsTheAggregatorWithAClearMessage(TestKafka kafka) throws Exception {
    String topic = TestKafka.uniqueName("events-grow");
    kafka.createTopic(topic, 2, Map.of("retention.ms", "-1"));
    List<TokenEvent> few = SyntheticLoad.events(3, T0, 20);
    SyntheticLoad.publish(kafka.producerProps(), topic, 2, few, -1);
    AggregatorConfig config = config(kafka, topic, "agg-grow");
    try (Aggregator first = Aggregator.start(config)) {
      readSummaries(kafka, config.outputTopic(), 1); // it ran with 2 partitions
    }
    try (var admin = kafka.admin()) {
      admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(3))).all().get();
    }
    PartitionsChangedException e =
        assertThrows(PartitionsChangedException.class, () -> Aggregator.start(config));
    assertEquals(
        "partitions changed: re-aggregate with a new --application-id (topic "
            + topic
            + " had 2 partitions when this application id started, now 3)",
        e.getMessage());
  }

  /**
   * A poison record as large as the broker takes (value and a large header, about 1 MB) would give
   * a dead letter larger than its topic takes once the reason headers are added: it is cut, and the
   * valid events after it still give their summaries.
   */
  @Test
  void aPoisonRecordAtTheSizeLimitIsDeadLetteredTruncatedAndTheEventsAfterItAreAggregated(
      TestKafka kafka) throws Exception {
    String topic = TestKafka.uniqueName("events-huge-poison");
    kafka.createTopic(topic, 1, Map.of("retention.ms", "-1"));
    Req r = new Req("r1", "model-a", Map.of("concurrency", "1"), "p1");
    List<TokenEvent> valid =
        List.of(
            Req.heartbeat(T0, "p1", T0),
            r.start(T0 + 1),
            r.token(T0 + 2, 2_000_000),
            r.token(T0 + 3, 3_000_000),
            r.token(T0 + 5, 5_000_000),
            r.end(T0 + 6, 6_000_000),
            Req.finalHeartbeat(T0 + 7, "p1", T0 + 7));
    byte[] value = new byte[950_000];
    java.util.Arrays.fill(value, (byte) 'x');
    byte[] big = new byte[98_400]; // with the value, as much as one record may carry by default
    RecordHeaders headers = new RecordHeaders();
    headers.add("trace", "t-1".getBytes(StandardCharsets.UTF_8));
    headers.add("big", big);
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(kafka.producerProps())) {
      producer.send(new ProducerRecord<>(topic, 0, T0, "poison-key", value, headers)).get();
      for (TokenEvent e : valid) {
        String key = e.requestId() != null ? e.requestId() : e.producerId();
        producer.send(new ProducerRecord<>(topic, 0, e.ts(), key, TokenEventCodec.encode(e)));
      }
      producer.flush();
    }
    List<String> expected = offline(valid);
    assertEquals(1, expected.size());

    AggregatorConfig config = config(kafka, topic, "agg-huge-poison");
    try (Aggregator aggregator = Aggregator.start(config)) {
      assertEquals(expected, readSummaries(kafka, config.outputTopic(), expected.size()));
      assertEquals(2, WindowSummaryCodec.decode(expected.get(0)).tpot().count());

      List<ConsumerRecord<byte[], byte[]>> dead = readDeadLetters(kafka, config.deadLetterTopic());
      assertEquals(1, dead.size());
      ConsumerRecord<byte[], byte[]> d = dead.get(0);
      assertEquals("poison-key", new String(d.key(), StandardCharsets.UTF_8));
      assertEquals(64 * 1024, d.value().length);
      assertEquals("x".repeat(64 * 1024), new String(d.value(), StandardCharsets.UTF_8));
      assertEquals("true", header(d, DeadLetterHeaders.VALUE_TRUNCATED));
      assertEquals("950000", header(d, DeadLetterHeaders.VALUE_SIZE));
      assertEquals("t-1", header(d, "trace"));
      assertEquals(null, d.headers().lastHeader("big"));
      assertEquals("1", header(d, DeadLetterHeaders.HEADERS_DROPPED));
      assertEquals(topic, header(d, DeadLetterHeaders.SOURCE_TOPIC));
      assertEquals("0", header(d, DeadLetterHeaders.SOURCE_PARTITION));
      assertEquals("0", header(d, DeadLetterHeaders.SOURCE_OFFSET));
      assertTrue(header(d, DeadLetterHeaders.REASON).startsWith("not a token event"));
      assertTrue(aggregator.isRunning(), "the aggregator keeps running");
      assertTrue(!aggregator.stopped().isDone(), "the aggregator has not stopped");
    }
  }

  @Test
  void anApplicationIdRestartedWithAnotherWindowStopsWithBothSettings(TestKafka kafka) {
    String topic = TestKafka.uniqueName("events-resettle");
    kafka.createTopic(topic, 1, Map.of("retention.ms", "-1"));
    SyntheticLoad.publish(kafka.producerProps(), topic, 1, SyntheticLoad.events(3, T0, 20), -1);
    AggregatorConfig config = config(kafka, topic, "agg-resettle");
    try (Aggregator first = Aggregator.start(config)) {
      readSummaries(kafka, config.outputTopic(), 1); // it ran with 10 s windows
    }
    AggregatorConfig wider = config.withStage(SETTINGS.withWindow(Duration.ofSeconds(60)));
    try (Aggregator second = Aggregator.start(wider)) {
      CompletionException e =
          assertThrows(
              CompletionException.class,
              () -> second.stopped().orTimeout(90, TimeUnit.SECONDS).join());
      assertTrue(e.getCause() instanceof Aggregator.AggregatorFailedException, e.toString());
      assertEquals(
          "settings changed: this application id was started with --window 10s --grace 0s"
              + " --group-by concurrency --slo (none) --request-timeout 10m --producer-timeout 1m"
              + " --client-lag-threshold 1ms --max-clock-skew 5m; now --window 1m --grace 0s"
              + " --group-by concurrency --slo (none) --request-timeout 10m --producer-timeout 1m"
              + " --client-lag-threshold 1ms --max-clock-skew 5m: use a new --application-id, or the"
              + " same settings",
          e.getCause().getMessage());
    }
  }

  /**
   * Commits come once a second, and a window closed by live traffic asks for its commits at once:
   * with a commit interval of ten minutes, the summaries of events written just now still arrive.
   */
  @Test
  void windowsClosedByLiveTrafficAreCommittedWithoutWaitingForTheInterval(TestKafka kafka) {
    // written now, while the aggregator reads: every closing heartbeat is seconds old at most
    summariesArriveWithTenMinuteCommits(kafka, "agg-live", System::currentTimeMillis);
  }

  /**
   * A day old: no window is closed by live traffic, and the backlog's end is what commits. A window
   * starts right after the last heartbeat (which every partition reads), so the last window holds
   * only the last requests' tails, and the partitions that hold none of them have nothing open
   * there: they must close it all the same, or stage 2 waits for them.
   */
  @Test
  void theLastWindowsOfABacklogAreCommittedOnceTheThreadGoesIdle(TestKafka kafka) {
    long lastHeartbeat =
        SyntheticLoad.events(7, 0, 20).stream()
            .filter(e -> e.type() == EventType.HEARTBEAT && !Boolean.TRUE.equals(e.isFinal()))
            .mapToLong(TokenEvent::ts)
            .max()
            .orElseThrow();
    summariesArriveWithTenMinuteCommits(
        kafka,
        "agg-backlog",
        () ->
            Windows.startOf(System.currentTimeMillis() - 24 * 3_600_000L, SETTINGS.windowSize())
                - lastHeartbeat
                - 1);
  }

  /**
   * Once its backlog is read, an aggregator makes no commit at all: each would be a transaction (an
   * idle check that kept running would mark every task for a commit each second).
   */
  @Test
  void anIdleAggregatorCommitsNothing(TestKafka kafka) {
    String topic = TestKafka.uniqueName("events-idle");
    kafka.createTopic(topic, 3, Map.of("retention.ms", "-1"));
    List<TokenEvent> events =
        SyntheticLoad.events(7, System.currentTimeMillis() - 24 * 3_600_000L, 20);
    List<String> expected = offline(events);
    SyntheticLoad.publish(kafka.producerProps(), topic, 3, events, -1);
    AggregatorConfig config = config(kafka, topic, "agg-idle");
    try (Aggregator aggregator = Aggregator.start(config)) {
      assertEquals(expected, readSummaries(kafka, config.outputTopic(), expected.size()));
      assertTrue(aggregator.commits() > 0, "the backlog was committed");
      // two looks a second apart (20 idle checks) that see the same count: no commit in between
      AtomicLong seen = new AtomicLong(-1);
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () -> {
                long now = aggregator.commits();
                return seen.getAndSet(now) == now;
              });
    }
  }

  /**
   * Events from {@code startMs} on (asked once the aggregator runs, so that "now" is after its
   * start-up), published then, come out as their summaries although Kafka Streams' own commits are
   * ten minutes apart (a read_committed reader sees nothing before a commit).
   */
  private void summariesArriveWithTenMinuteCommits(
      TestKafka kafka, String name, LongSupplier startMs) {
    String topic = TestKafka.uniqueName(name);
    kafka.createTopic(topic, 3, Map.of("retention.ms", "-1"));
    AggregatorConfig config =
        config(
            kafka,
            topic,
            name,
            Map.of(
                StreamsConfig.COMMIT_INTERVAL_MS_CONFIG,
                Long.toString(10 * 60_000),
                StreamsConfig.producerPrefix("transaction.timeout.ms"),
                Long.toString(15 * 60_000)));
    try (Aggregator aggregator = Aggregator.start(config)) {
      await().atMost(Duration.ofSeconds(60)).until(aggregator::isRunning);
      List<TokenEvent> events = SyntheticLoad.events(7, startMs.getAsLong(), 20);
      List<String> expected = offline(events);
      SyntheticLoad.publish(kafka.producerProps(), topic, 3, events, -1);
      assertEquals(expected, readSummaries(kafka, config.outputTopic(), expected.size()));
    }
  }

  /** The offline statistics over {@code events}, as JSON. */
  private static List<String> offline(List<TokenEvent> events) {
    return OfflineStats.compute(
            events,
            SETTINGS,
            problem -> {
              throw new AssertionError(problem);
            })
        .stream()
        .map(WindowSummaryCodec::encodeToString)
        .toList();
  }

  private static AggregatorConfig config(TestKafka kafka, String input, String name) {
    return config(kafka, input, name, Map.of());
  }

  private static AggregatorConfig config(
      TestKafka kafka, String input, String name, Map<String, String> streams) {
    String id = TestKafka.uniqueName(name);
    Map<String, String> properties = new java.util.HashMap<>(streams);
    properties.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.resolve(id).toString());
    return AggregatorConfig.defaults(kafka.bootstrapServers())
        .withTopics(input, id + "-summaries", id + "-dead-letters")
        .withApplicationId(id)
        .withStage(SETTINGS)
        .withKafkaProperties(properties);
  }

  private static List<String> readSummaries(TestKafka kafka, String topic, int expected) {
    List<String> json = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(kafka.consumerProps(TestKafka.uniqueName("reader")))) {
      consumer.subscribe(List.of(topic));
      await()
          .atMost(Duration.ofSeconds(90))
          .until(
              () -> {
                consumer
                    .poll(Duration.ofMillis(200))
                    .forEach(r -> json.add(new String(r.value(), StandardCharsets.UTF_8)));
                return json.size() >= expected;
              });
    }
    return json;
  }

  private static List<ConsumerRecord<byte[], byte[]>> readDeadLetters(
      TestKafka kafka, String topic) {
    var props = kafka.consumerProps(TestKafka.uniqueName("dead"));
    props.put(
        "key.deserializer",
        org.apache.kafka.common.serialization.ByteArrayDeserializer.class.getName());
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      consumer.subscribe(List.of(topic));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                return !records.isEmpty();
              });
    }
    return records;
  }

  private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
    Header h = record.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }
}

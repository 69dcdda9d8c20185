package io.tpotstream.aggregator.topology;

import io.tpotstream.aggregator.AggregatorConfig;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.test.TestRecord;

/** The aggregator's topology in a TopologyTestDriver (one partition per topic). */
final class TopologyHarness implements AutoCloseable {
  final AggregatorConfig config;
  final TopologyTestDriver driver;
  private final TestInputTopic<byte[], byte[]> input;
  private final TestOutputTopic<String, byte[]> output;
  private final TestOutputTopic<byte[], byte[]> deadLetters;

  /** Every summary read so far, in output order. */
  final List<WindowSummary> summaries = new ArrayList<>();

  /** Their JSON, in output order. */
  final List<String> json = new ArrayList<>();

  /** The aggregator of a shared topic ({@code tpot aggregate}). */
  TopologyHarness(StageSettings settings) {
    this(settings, null);
  }

  /** With {@code runId}: the aggregator of one run ({@code tpot run}), which no one can join. */
  TopologyHarness(StageSettings settings, String runId) {
    config =
        AggregatorConfig.defaults("unused:9092")
            .withApplicationId("ttd-aggregator")
            .withStage(settings)
            .withInputPartitions(1)
            .withRunId(runId);
    Properties props = AggregatorTopology.streamsProperties(config);
    driver = new TopologyTestDriver(AggregatorTopology.buildTopology(config), props);
    input =
        driver.createInputTopic(
            config.inputTopic(), new ByteArraySerializer(), new ByteArraySerializer());
    output =
        driver.createOutputTopic(
            config.outputTopic(), new StringDeserializer(), new ByteArrayDeserializer());
    deadLetters =
        driver.createOutputTopic(
            config.deadLetterTopic(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /** Pipes events as the producer publishes them: key = request id, timestamp = ts. */
  void pipe(TokenEvent... events) {
    for (TokenEvent e : events) {
      pipe(List.of(e));
    }
  }

  void pipe(List<TokenEvent> events) {
    for (TokenEvent e : events) {
      String key = e.requestId() != null ? e.requestId() : e.producerId();
      input.pipeInput(key.getBytes(StandardCharsets.UTF_8), TokenEventCodec.encode(e), e.ts());
    }
    dropChangelogRecords();
  }

  /** The driver keeps every changelog record it "produced"; long runs must drop them. */
  private void dropChangelogRecords() {
    for (String topic : driver.producedTopicNames()) {
      if (topic.endsWith("-changelog")) {
        driver
            .createOutputTopic(topic, new ByteArrayDeserializer(), new ByteArrayDeserializer())
            .readRecordsToList();
      }
    }
  }

  /**
   * Moves this machine's clock on by {@code by} in steps of a tick, so that stage 1 sees an idle
   * partition the way a live aggregator does.
   */
  void advanceWallClock(java.time.Duration by) {
    java.time.Duration left = by;
    while (left.compareTo(Stage1Processor.TICK) > 0) {
      driver.advanceWallClockTime(Stage1Processor.TICK);
      left = left.minus(Stage1Processor.TICK);
    }
    driver.advanceWallClockTime(left);
    dropChangelogRecords();
  }

  /** Pipes {@code event} in a record whose broker timestamp is {@code recordTs}. */
  void pipeAt(long recordTs, TokenEvent event) {
    String key = event.requestId() != null ? event.requestId() : event.producerId();
    input.pipeInput(key.getBytes(StandardCharsets.UTF_8), TokenEventCodec.encode(event), recordTs);
  }

  void pipeRaw(String key, byte[] value, long ts) {
    input.pipeInput(key.getBytes(StandardCharsets.UTF_8), value, ts);
  }

  void pipeRaw(String key, byte[] value, Headers headers, long ts) {
    input.pipeInput(new TestRecord<>(key.getBytes(StandardCharsets.UTF_8), value, headers, ts));
  }

  /** Reads the summaries emitted since the last call (and keeps them in {@link #summaries}). */
  List<WindowSummary> newSummaries() {
    List<WindowSummary> fresh = new ArrayList<>();
    for (TestRecord<String, byte[]> r : output.readRecordsToList()) {
      WindowSummary s = WindowSummaryCodec.decode(r.value());
      if (!s.series().equals(r.key())) {
        throw new AssertionError("summary of " + s.series() + " keyed by " + r.key());
      }
      fresh.add(s);
      json.add(new String(r.value(), StandardCharsets.UTF_8));
    }
    summaries.addAll(fresh);
    return fresh;
  }

  List<TestRecord<byte[], byte[]>> deadLetters() {
    return deadLetters.readRecordsToList();
  }

  /**
   * Entries of one kind in a working-set store as of the last commit (the driver commits after
   * every record): {@code tag} is the kind's first key byte ('r' requests, 'w' window counts).
   */
  int storeEntries(String name, char tag) {
    WorkingSetStore store = (WorkingSetStore) driver.getAllStateStores().get(name);
    int n = 0;
    try (KeyValueIterator<Bytes, byte[]> it = store.inner().all()) {
      while (it.hasNext()) {
        if (it.next().key.get()[0] == tag) {
          n++;
        }
      }
    }
    return n;
  }

  @Override
  public void close() {
    driver.close();
  }
}

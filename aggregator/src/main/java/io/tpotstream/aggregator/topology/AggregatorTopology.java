package io.tpotstream.aggregator.topology;

import io.tpotstream.aggregator.AggregatorConfig;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;

/**
 * The two-stage topology of docs/design.md's "Time, windows and completeness": per input partition,
 * samples into partial windows closed by producer watermarks; then one task merging the partials
 * and finalising each window once every partition has closed it.
 */
public final class AggregatorTopology {
  /**
   * Stage 1's working set per input partition (open requests, open windows' counts, producers'
   * watermarks, series names, the partition's closed-through window end), written at every commit.
   */
  public static final String STAGE1_STORE = "stage1-working-set";

  /** Stage 2's working set (merged partials per window and series, N, markers, progress). */
  public static final String STAGE2_STORE = "stage2-working-set";

  /** Name of the single-partition internal topic between the stages (prefixed by Streams). */
  public static final String PARTIALS_TOPIC = "window-partials";

  /**
   * The largest record the stages may write to their internal topics (8 MB, where Kafka's default
   * is 1 MB): a partial carries a window's bucket counts, and the largest one any input can make
   * (every bucket of every histogram counted, every error class, the longest series name) is under
   * 3 MB (WindowCountsTest), so no input can make a write fail.
   */
  public static final int MAX_INTERNAL_RECORD_BYTES = 8 * 1024 * 1024;

  private static final String STAGE1 = "stage1-";
  private static final String DEAD_LETTERS = "dead-letters";
  private static final String PARTIALS = "partials";

  private AggregatorTopology() {}

  /**
   * The topology for {@code config} with every silence taken as real (tests, benchmarks); {@code
   * config.inputPartitions()} must be the input topic's partition count.
   */
  public static Topology buildTopology(AggregatorConfig config) {
    return buildTopology(config, ReadConfirmation.ALWAYS);
  }

  /**
   * The topology for {@code config}, whose idle partitions move their clocks only while {@code
   * reads} confirms they have read everything; {@code config.inputPartitions()} must be the input
   * topic's partition count.
   */
  public static Topology buildTopology(AggregatorConfig config, ReadConfirmation reads) {
    if (config.inputPartitions() < 1) {
      throw new IllegalArgumentException(
          "the input topic's partition count is needed to know when a window is complete");
    }
    Serde<byte[]> bytes = Serdes.ByteArray();
    Serde<StageMessage> messages = StageMessageSerde.serde();
    StreamsBuilder builder =
        new StreamsBuilder(new TopologyConfig(new StreamsConfig(streamsProperties(config))));
    builder.addStateStore(WorkingSetStore.builder(STAGE1_STORE));
    builder.addStateStore(WorkingSetStore.builder(STAGE2_STORE));

    KStream<byte[], byte[]> events =
        builder.stream(config.inputTopic(), Consumed.with(bytes, bytes).withName("token-events"));
    if (config.runId() != null) {
      // tpot run on a shared topic: this run's events and heartbeats only
      events = events.filter(new RunFilter(config.runId()), Named.as("this-run-only"));
    }

    // stage 1: per-request samples into partial windows, closed by producer watermarks
    KStream<byte[], StageMessage> stage1 =
        events.process(
            () ->
                new Stage1Processor(
                    config.stage(), config.deadLetterTopic(), config.runId() != null, reads),
            Named.as("per-partition-windows"),
            STAGE1_STORE);
    Map<String, KStream<byte[], StageMessage>> routes =
        stage1
            .split(Named.as(STAGE1))
            .branch((key, m) -> m.isDeadLetter(), Branched.as(DEAD_LETTERS))
            .defaultBranch(Branched.as(PARTIALS));

    // poison records, byte for byte, with headers saying where they came from and why
    routes
        .get(STAGE1 + DEAD_LETTERS)
        .mapValues(StageMessage::payload, Named.as("original-bytes"))
        .to(config.deadLetterTopic(), Produced.with(bytes, bytes).withName("dead-letter"));

    // stage 2: one task merges every partition's partials and finalises complete windows
    routes
        .get(STAGE1 + PARTIALS)
        .repartition(
            Repartitioned.with(bytes, messages).withName(PARTIALS_TOPIC).withNumberOfPartitions(1))
        .process(
            () ->
                new Stage2Processor(config.inputPartitions(), config.inputTopic(), config.stage()),
            Named.as("merge-windows"),
            STAGE2_STORE)
        .to(
            config.outputTopic(),
            Produced.with(Serdes.String(), bytes).withName("window-summaries"));
    return builder.build();
  }

  /** The Streams configuration, with the reason for each property we set. */
  public static Properties streamsProperties(AggregatorConfig config) {
    Properties p = new Properties();
    // no record cache: the processors keep their working set in memory and write it at commit
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, "0");
    // a commit is a transaction: once a second lets a backlog be read at speed, and a window
    // closed by live traffic asks for its commits at once (LiveCommit), so a summary does not
    // wait for the interval twice (stage 1's partials, then stage 2's output); BENCHMARKS.md B1, B3
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "1000");
    // one stream thread per core (at most 4): the input partitions' tasks then run side by side;
    // B1, a fresh application on 2 cores: 288,558 events/s end to end against 242,888 with one
    // thread (--kafka-config may set another count)
    p.put(
        StreamsConfig.NUM_STREAM_THREADS_CONFIG,
        Integer.toString(Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()))));
    // a task restores its changelog before it reads, and a restore that finds nothing more to read
    // (a new application id, a changelog already caught up) waited out the broker's empty-fetch
    // wait, 500 ms, before the next task's began: at every start and rebalance, tasks after the
    // first started 0.4 s late; with 50 ms, within 0.1 s of the first (BENCHMARKS.md B1)
    p.put(StreamsConfig.restoreConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), "50");
    // what the stages write is few records of kilobytes (a partial carries a window's bucket
    // counts): batches of 256 KB instead of 16 send a commit's worth in a few requests, which took
    // the producers' network threads from 0.8 s to 0.3 s of CPU over ten million events (B1)
    p.put(StreamsConfig.producerPrefix(ProducerConfig.BATCH_SIZE_CONFIG), "262144");
    // a partial of the busiest window still fits a record: see MAX_INTERNAL_RECORD_BYTES
    p.put(
        StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG),
        Integer.toString(MAX_INTERNAL_RECORD_BYTES));
    p.put(
        StreamsConfig.topicPrefix(TopicConfig.MAX_MESSAGE_BYTES_CONFIG),
        Integer.toString(MAX_INTERNAL_RECORD_BYTES));
    // every task reads one partition: there is never another partition to wait for
    p.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, "-1");
    // no global stores; says so instead of warning at every start
    p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, "true");
    // internal topics take the broker's default replication: right on one broker and on a cluster
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "-1");
    // a new application id reads the input from its start
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    // never read events of producer transactions that were aborted
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.ISOLATION_LEVEL_CONFIG), "read_committed");
    p.putAll(config.kafkaProperties());
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, config.applicationId());
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    // exactly-once by default: summaries are written once and state matches the input read
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, config.processingGuarantee());
    return p;
  }
}

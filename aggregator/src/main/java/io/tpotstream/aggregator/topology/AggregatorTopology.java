package io.tpotstream.aggregator.topology;

import io.tpotstream.aggregator.AggregatorConfig;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
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
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The two-stage topology of DESIGN.md's "Time, windows and completeness": per input partition,
 * samples into partial windows closed by producer watermarks; then one task merging the partials
 * and finalising each window once every partition has closed it.
 */
public final class AggregatorTopology {
  /** Stage 1: per-request state, keyed by request id. */
  public static final String REQUEST_STORE = "request-state";

  /** Stage 1: open windows' counters (series, window, histogram, bucket) → count. */
  public static final String PARTIAL_STORE = "window-partials";

  /** Stage 1: producers' watermarks, the partition's closed-through window end, series names. */
  public static final String PARTITION_STORE = "partition-progress";

  /** Stage 2: merged partials per (window, series). */
  public static final String MERGED_STORE = "merged-windows";

  /** Stage 2: N, each partition's marker, the finalised window end. */
  public static final String MERGE_PROGRESS_STORE = "merge-progress";

  /** Name of the single-partition internal topic between the stages (prefixed by Streams). */
  public static final String PARTIALS_TOPIC = "window-partials";

  private static final String STAGE1 = "stage1-";
  private static final String DEAD_LETTERS = "dead-letters";
  private static final String PARTIALS = "partials";

  private AggregatorTopology() {}

  /**
   * The topology for {@code config}; {@code config.inputPartitions()} must be the input topic's
   * partition count.
   */
  public static Topology buildTopology(AggregatorConfig config) {
    if (config.inputPartitions() < 1) {
      throw new IllegalArgumentException(
          "the input topic's partition count is needed to know when a window is complete");
    }
    Serde<byte[]> bytes = Serdes.ByteArray();
    Serde<StageMessage> messages = StageMessageSerde.serde();
    StreamsBuilder builder =
        new StreamsBuilder(new TopologyConfig(new StreamsConfig(streamsProperties(config))));
    builder.addStateStore(store(REQUEST_STORE));
    builder.addStateStore(store(PARTIAL_STORE));
    builder.addStateStore(store(PARTITION_STORE));
    builder.addStateStore(store(MERGED_STORE));
    builder.addStateStore(store(MERGE_PROGRESS_STORE));

    KStream<byte[], byte[]> events =
        builder.stream(config.inputTopic(), Consumed.with(bytes, bytes).withName("token-events"));
    if (config.runId() != null) {
      // tpot run on a shared topic: this run's events and heartbeats only
      events = events.filter(new RunFilter(config.runId()), Named.as("this-run-only"));
    }

    // stage 1: per-request samples into partial windows, closed by producer watermarks
    KStream<byte[], StageMessage> stage1 =
        events.process(
            () -> new Stage1Processor(config.stage(), config.deadLetterTopic()),
            Named.as("per-partition-windows"),
            REQUEST_STORE,
            PARTIAL_STORE,
            PARTITION_STORE);
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
                new Stage2Processor(
                    config.inputPartitions(), config.inputTopic(), config.stage().slo()),
            Named.as("merge-windows"),
            MERGED_STORE,
            MERGE_PROGRESS_STORE)
        .to(
            config.outputTopic(),
            Produced.with(Serdes.String(), bytes).withName("window-summaries"));
    return builder.build();
  }

  /** The Streams configuration, with the reason for each property we set. */
  public static Properties streamsProperties(AggregatorConfig config) {
    Properties p = new Properties();
    // caching stores: a sample is a cheap in-memory update until the next commit
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, Long.toString(64L * 1024 * 1024));
    // windows are 10 s long: committing every second instead of 100 ms cuts the transaction cost
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "1000");
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

  private static StoreBuilder<KeyValueStore<Bytes, byte[]>> store(String name) {
    return Stores.keyValueStoreBuilder(
            Stores.inMemoryKeyValueStore(name), Serdes.Bytes(), Serdes.ByteArray())
        .withCachingEnabled()
        .withLoggingEnabled(Map.of());
  }
}

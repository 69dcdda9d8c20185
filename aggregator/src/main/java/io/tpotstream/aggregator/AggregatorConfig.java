package io.tpotstream.aggregator;

import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.common.Records;
import io.tpotstream.common.Topics;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Everything the aggregator needs to run.
 *
 * @param bootstrapServers Kafka's bootstrap servers
 * @param inputTopic token events
 * @param outputTopic window summaries
 * @param deadLetterTopic where records that are not token events go
 * @param applicationId the Kafka Streams application id; a new one reads the input from the start
 * @param stage windows, grace, grouping and timeouts
 * @param processingGuarantee {@code exactly_once_v2} (the exactness claims hold only under it) or
 *     {@code at_least_once}
 * @param kafkaProperties extra client and Streams properties (security, threads, ...)
 * @param inputPartitions N, the input topic's partition count; 0 until read from the topic
 * @param runId when set, only the events (heartbeats included) of this run are aggregated; the rest
 *     of the input, records that are not token events among them, is skipped ({@code tpot run} on a
 *     shared cluster)
 */
public record AggregatorConfig(
    String bootstrapServers,
    String inputTopic,
    String outputTopic,
    String deadLetterTopic,
    String applicationId,
    StageSettings stage,
    String processingGuarantee,
    Map<String, String> kafkaProperties,
    int inputPartitions,
    String runId) {

  public static final String DEFAULT_APPLICATION_ID = "tpot-aggregator";

  public AggregatorConfig {
    if (!StreamsConfig.EXACTLY_ONCE_V2.equals(processingGuarantee)
        && !StreamsConfig.AT_LEAST_ONCE.equals(processingGuarantee)) {
      throw new IllegalArgumentException(
          "unknown processing guarantee '"
              + processingGuarantee
              + "': use exactly_once_v2 or at_least_once");
    }
    kafkaProperties =
        kafkaProperties == null ? Map.of() : Map.copyOf(new TreeMap<>(kafkaProperties));
  }

  /** Default topics, application id, windows and exactly-once, against {@code bootstrapServers}. */
  public static AggregatorConfig defaults(String bootstrapServers) {
    return new AggregatorConfig(
        bootstrapServers,
        Topics.TOKEN_EVENTS,
        Topics.WINDOW_SUMMARIES,
        Topics.DEAD_LETTER,
        DEFAULT_APPLICATION_ID,
        StageSettings.defaults(),
        StreamsConfig.EXACTLY_ONCE_V2,
        Map.of(),
        0,
        null);
  }

  public AggregatorConfig withTopics(String input, String output, String deadLetter) {
    return Records.with(
        Records.with(Records.with(this, "inputTopic", input), "outputTopic", output),
        "deadLetterTopic",
        deadLetter);
  }

  public AggregatorConfig withApplicationId(String id) {
    return Records.with(this, "applicationId", id);
  }

  public AggregatorConfig withStage(StageSettings settings) {
    return Records.with(this, "stage", settings);
  }

  public AggregatorConfig withProcessingGuarantee(String guarantee) {
    return Records.with(this, "processingGuarantee", guarantee);
  }

  public AggregatorConfig withKafkaProperties(Map<String, String> properties) {
    return Records.with(this, "kafkaProperties", properties);
  }

  public AggregatorConfig withInputPartitions(int partitions) {
    return Records.with(this, "inputPartitions", partitions);
  }

  /** Only the events of run {@code id} (null: every event). */
  public AggregatorConfig withRunId(String id) {
    return Records.with(this, "runId", id);
  }
}

package io.tpotstream.sink.metrics;

import io.tpotstream.sink.record.FlatRecord;
import java.io.Closeable;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes flat records to the metrics topic exactly once: each batch goes in one transaction
 * together with the offsets of the summaries it came from (read-process-write). Key = series;
 * record timestamp = window end, never past the summary's own record timestamp ({@link
 * #timestamp}). A restart with the same transactional id aborts what a killed sink left open.
 */
public final class MetricsTopic implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(MetricsTopic.class);

  private final KafkaProducer<String, byte[]> producer;
  private final String topic;
  private final String transactionalId;

  /**
   * A transactional producer for {@code topic}.
   *
   * @param clientProps connection and security settings (bootstrap servers, SASL, ...)
   */
  public MetricsTopic(Properties clientProps, String topic, String transactionalId) {
    Properties props = new Properties();
    props.putAll(clientProps);
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    this.topic = topic;
    this.transactionalId = transactionalId;
    this.producer = new KafkaProducer<>(props);
    try {
      producer.initTransactions();
    } catch (KafkaException e) {
      producer.close(Duration.ZERO);
      throw new IllegalStateException(
          "cannot start transactions on Kafka as " + transactionalId + ": " + e.getMessage(), e);
    }
  }

  /**
   * The timestamp of {@code record}'s metrics record: its window end ({@code ts}), unless the
   * summary it came from was written earlier than that ({@code summaryTimestampMs}, the broker
   * accepted it): a window closed before its end (a {@code tpot run}'s last one, closed when its
   * producer ended) would otherwise stamp a record in the broker's future, which the broker warns
   * about and keeps from retention, and past {@code message.timestamp.after.max.ms} refuses. As the
   * aggregator stamps that summary.
   */
  public static long timestamp(FlatRecord record, long summaryTimestampMs) {
    return summaryTimestampMs < 0 ? record.ts() : Math.min(record.ts(), summaryTimestampMs);
  }

  /**
   * Sends the {@code records}, record {@code i} with timestamp {@code timestampsMs[i]} ({@link
   * #timestamp}), and commits {@code offsets} for {@code group} in one transaction; {@code
   * beforeCommit} runs once everything is sent and before the commit.
   *
   * @throws IllegalStateException when the transaction failed (it is aborted: nothing of it is
   *     visible to read_committed readers, and the offsets are not committed)
   */
  public void write(
      List<FlatRecord> records,
      long[] timestampsMs,
      Map<TopicPartition, OffsetAndMetadata> offsets,
      ConsumerGroupMetadata group,
      Runnable beforeCommit) {
    try {
      producer.beginTransaction();
      for (int i = 0; i < records.size(); i++) {
        FlatRecord record = records.get(i);
        producer.send(
            new ProducerRecord<>(topic, null, timestampsMs[i], record.series(), record.toJson()));
      }
      producer.sendOffsetsToTransaction(offsets, group);
      beforeCommit.run();
      producer.commitTransaction();
    } catch (ProducerFencedException | InvalidProducerEpochException e) {
      throw new IllegalStateException(
          "another sink took over transactional id "
              + transactionalId
              + " (same --group-id running twice?): this one stops",
          e);
    } catch (KafkaException e) {
      abort();
      throw new IllegalStateException(
          "the transaction to " + topic + " failed and was aborted: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(5));
  }

  private void abort() {
    try {
      producer.abortTransaction();
    } catch (KafkaException e) {
      LOG.warn("cannot abort the transaction to {}: {}", topic, e.getMessage());
    }
  }
}

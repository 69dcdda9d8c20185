package io.tpotstream.bench.throughput;

import io.tpotstream.bench.workload.BenchTopics;
import io.tpotstream.common.event.TokenEventCodec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/** A plain KafkaConsumer reading a whole topic: the ceiling any Kafka reader has here. */
public final class PlainConsumer {
  /** What one read did. */
  public record Read(long records, long bytes, long elapsedNs) {
    public double perSecond() {
      return records / (elapsedNs / 1e9);
    }
  }

  private PlainConsumer() {}

  /**
   * Reads a whole topic in a JVM of its own, as a fresh process ({@code BOOTSTRAP TOPIC}); prints
   * {@code records N}.
   */
  public static void main(String[] args) {
    System.out.println("records " + readAll(args[0], args[1], false).records());
  }

  /**
   * Reads {@code topic} from its start to its end offsets (read_committed, default fetch sizes),
   * from consumer creation to the last record; with {@code decode}, also decodes every value as a
   * token event.
   */
  static Read readAll(String bootstrap, String topic, boolean decode) {
    long startNs = System.nanoTime();
    try (KafkaConsumer<byte[], byte[]> consumer = BenchTopics.consumer(bootstrap)) {
      List<TopicPartition> parts = BenchTopics.assignFromStart(consumer, topic);
      Map<TopicPartition, Long> end = consumer.endOffsets(parts);
      long expected = end.values().stream().mapToLong(Long::longValue).sum();
      long records = 0;
      long bytes = 0;
      while (records < expected) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          records++;
          bytes += r.serializedValueSize();
          if (decode) {
            TokenEventCodec.decode(r.value());
          }
        }
        if (records < expected && consumerAtEnd(consumer, end)) {
          break;
        }
      }
      return new Read(records, bytes, System.nanoTime() - startNs);
    }
  }

  private static boolean consumerAtEnd(
      KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (consumer.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }
}

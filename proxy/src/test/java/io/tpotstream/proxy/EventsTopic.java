package io.tpotstream.proxy;

import static org.awaitility.Awaitility.await;

import io.tpotstream.testkit.TestKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads every topic of the broker back raw (the token-events topic itself: the producer's {@code
 * TopicReader}).
 */
final class EventsTopic {
  private EventsTopic() {}

  /** Every record key and value of every topic on the broker, as text (UTF-8). */
  static List<String> everyRecordOfEveryTopic(TestKafka kafka) {
    List<String> texts = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(kafka.consumerProps(TestKafka.uniqueName("all")))) {
      List<TopicPartition> tps = new ArrayList<>();
      for (List<PartitionInfo> infos : consumer.listTopics().values()) {
        for (PartitionInfo p : infos) {
          tps.add(new TopicPartition(p.topic(), p.partition()));
        }
      }
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Map<TopicPartition, Long> ends = consumer.endOffsets(tps);
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                  texts.add(r.topic() + " " + r.key());
                  if (r.value() != null) {
                    texts.add(new String(r.value(), StandardCharsets.UTF_8));
                  }
                }
                return ends.entrySet().stream()
                    .allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
              });
    }
    return texts;
  }
}

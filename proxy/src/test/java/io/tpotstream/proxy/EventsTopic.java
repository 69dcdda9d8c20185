package io.tpotstream.proxy;

import static org.awaitility.Awaitility.await;

import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.testkit.TestKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/** Reads topics back whole: a token-events topic up to its final heartbeats, or any topic raw. */
final class EventsTopic {
  record Rec(
      int partition, long offset, long timestamp, String key, byte[] value, TokenEvent event) {}

  private EventsTopic() {}

  /** Reads until every partition holds a final heartbeat of {@code producerId} (or 30 s pass). */
  static List<Rec> readUntilFinal(TestKafka kafka, String topic, String producerId) {
    List<Rec> all = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(kafka.consumerProps(TestKafka.uniqueName("reader")))) {
      List<TopicPartition> tps =
          consumer.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Set<Integer> finals = new TreeSet<>();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                  TokenEvent e = TokenEventCodec.decode(r.value());
                  all.add(new Rec(r.partition(), r.offset(), r.timestamp(), r.key(), r.value(), e));
                  if (e.finalHeartbeat() && producerId.equals(e.producerId())) {
                    finals.add(r.partition());
                  }
                }
                return finals.size() == tps.size();
              });
    }
    return all;
  }

  /** The non-heartbeat events, by request id, each in offset order. */
  static Map<String, List<TokenEvent>> byRequest(List<Rec> records) {
    return records.stream()
        .filter(r -> r.event().type() != EventType.HEARTBEAT)
        .collect(
            Collectors.groupingBy(
                r -> r.event().requestId(),
                TreeMap::new,
                Collectors.mapping(Rec::event, Collectors.toList())));
  }

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

package io.tpotstream.producer.testing;

import static org.awaitility.Awaitility.await;

import io.tpotstream.common.Json;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.testkit.TestKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads a whole token-events topic back, in partition and offset order. */
public final class TopicReader {
  /** One record: where it was, its timestamp, key, raw bytes and decoded event. */
  public record Rec(
      int partition, long offset, long timestamp, String key, byte[] value, TokenEvent event) {
    public String raw() {
      return new String(value, StandardCharsets.UTF_8);
    }
  }

  private TopicReader() {}

  /** Reads until every partition ends with a final heartbeat of the producer (or 30 s pass). */
  public static List<Rec> readUntilFinal(TestKafka kafka, String topic, int partitions) {
    return readUntilFinal(kafka.consumerProps(TestKafka.uniqueName("reader")), topic, partitions);
  }

  /** As {@link #readUntilFinal(TestKafka, String, int)}, on any broker. */
  public static List<Rec> readUntilFinal(String bootstrapServers, String topic, int partitions) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, TestKafka.uniqueName("reader"));
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    return readUntilFinal(p, topic, partitions);
  }

  /**
   * Reads until every partition holds a final heartbeat of {@code producerId} (or 30 s pass), on a
   * topic other producers may share (the proxy's tests).
   */
  public static List<Rec> readUntilFinal(TestKafka kafka, String topic, String producerId) {
    return readUntilFinal(
        kafka.consumerProps(TestKafka.uniqueName("reader")),
        topic,
        -1,
        e -> producerId.equals(e.producerId()));
  }

  private static List<Rec> readUntilFinal(Properties consumerProps, String topic, int partitions) {
    return readUntilFinal(consumerProps, topic, partitions, e -> true);
  }

  /** {@code partitions} -1: as many as the topic has. */
  private static List<Rec> readUntilFinal(
      Properties consumerProps, String topic, int partitions, Predicate<TokenEvent> ofProducer) {
    List<Rec> all = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(consumerProps)) {
      List<TopicPartition> tps = new ArrayList<>();
      int count = partitions >= 0 ? partitions : consumer.partitionsFor(topic).size();
      for (int p = 0; p < count; p++) {
        tps.add(new TopicPartition(topic, p));
      }
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Set<Integer> finals = new TreeSet<>();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                  TokenEvent e = decode(r.value());
                  all.add(new Rec(r.partition(), r.offset(), r.timestamp(), r.key(), r.value(), e));
                  if (e.finalHeartbeat() && ofProducer.test(e)) {
                    finals.add(r.partition());
                  }
                }
                return finals.size() == count;
              });
    }
    return all;
  }

  /**
   * A record as the codec decodes it; an {@code engine} event (no request) as data binding reads
   * it, for the readers of common may not take it yet.
   */
  static TokenEvent decode(byte[] value) {
    if (new String(value, 0, Math.min(value.length, 20), StandardCharsets.UTF_8)
        .startsWith("{\"type\":\"engine\"")) {
      try {
        return Json.MAPPER.readValue(value, TokenEvent.class);
      } catch (java.io.IOException e) {
        throw new IllegalStateException(e);
      }
    }
    return TokenEventCodec.decode(value);
  }

  /**
   * The events of requests (no heartbeat, no engine event), grouped by request id, each list in
   * offset order.
   */
  public static Map<String, List<TokenEvent>> byRequest(List<Rec> records) {
    return records.stream()
        .filter(r -> r.event().requestId() != null)
        .collect(
            Collectors.groupingBy(
                r -> r.event().requestId(),
                TreeMap::new,
                Collectors.mapping(Rec::event, Collectors.toList())));
  }

  /** The events of the one request made for {@code model}. */
  public static List<TokenEvent> onlyRequestOf(List<Rec> records, String model) {
    List<List<TokenEvent>> requests =
        byRequest(records).values().stream().filter(l -> l.get(0).model().equals(model)).toList();
    if (requests.size() != 1) {
      throw new AssertionError("expected one request for " + model + ", got " + requests.size());
    }
    return requests.get(0);
  }

  /** The types of {@code events} in order, e.g. [start, token, token, end]. */
  public static List<String> types(List<TokenEvent> events) {
    return events.stream().map(e -> e.type().wire()).toList();
  }
}

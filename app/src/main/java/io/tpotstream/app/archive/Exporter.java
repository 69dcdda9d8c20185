package io.tpotstream.app.archive;

import io.tpotstream.common.archive.ArchiveWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Copies a topic's records, with key, partition, offset and record timestamp, into an archive file.
 * Reads committed records only, without a consumer group (partitions are assigned, not subscribed).
 */
public final class Exporter {
  /** What to export. {@code fromMs}/{@code toMs} bound the record timestamp (null: unbounded). */
  public record Settings(
      Properties client, String topic, Path out, Long fromMs, Long toMs, boolean follow) {}

  private final Settings settings;
  private final PrintStream progress;
  private final AtomicBoolean stopped = new AtomicBoolean();

  public Exporter(Settings settings, PrintStream progress) {
    this.settings = settings;
    this.progress = progress;
  }

  /** Asks a running {@link #run()} (with --follow) to finish after its current poll. */
  public void stop() {
    stopped.set(true);
  }

  /** Exports and returns the number of records written. */
  public long run() throws IOException {
    Properties p = new Properties();
    p.putAll(settings.client());
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(p);
        ArchiveWriter writer = new ArchiveWriter(settings.out())) {
      List<PartitionInfo> infos = consumer.partitionsFor(settings.topic(), Duration.ofSeconds(30));
      if (infos == null || infos.isEmpty()) {
        throw new IllegalArgumentException(
            "topic " + settings.topic() + " does not exist at " + p.get("bootstrap.servers"));
      }
      List<TopicPartition> partitions = new ArrayList<>();
      infos.forEach(i -> partitions.add(new TopicPartition(i.topic(), i.partition())));
      consumer.assign(partitions);
      seekToStart(consumer, partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      Map<TopicPartition, Long> remaining = new HashMap<>(end);
      long lastReport = System.nanoTime();
      while (!stopped.get()) {
        if (!settings.follow() && caughtUp(consumer, remaining)) {
          break;
        }
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          if (settings.toMs() != null && r.timestamp() >= settings.toMs()) {
            continue;
          }
          if (settings.fromMs() != null && r.timestamp() < settings.fromMs()) {
            continue;
          }
          writer.write(r.key(), r.partition(), r.offset(), r.timestamp(), r.value());
        }
        if (System.nanoTime() - lastReport > 1_000_000_000L) {
          progress.printf("export: %,d records written to %s%n", writer.written(), settings.out());
          lastReport = System.nanoTime();
        }
      }
      progress.printf(
          "export: done, %,d records from %s (%d partitions) written to %s%n",
          writer.written(), settings.topic(), partitions.size(), settings.out());
      return writer.written();
    }
  }

  private void seekToStart(
      KafkaConsumer<String, byte[]> consumer, List<TopicPartition> partitions) {
    if (settings.fromMs() == null) {
      consumer.seekToBeginning(partitions);
      return;
    }
    Map<TopicPartition, Long> query = new HashMap<>();
    partitions.forEach(tp -> query.put(tp, settings.fromMs()));
    Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(query);
    Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
    for (TopicPartition tp : partitions) {
      OffsetAndTimestamp at = found.get(tp);
      consumer.seek(tp, at == null ? ends.get(tp) : at.offset());
    }
  }

  private static boolean caughtUp(
      KafkaConsumer<String, byte[]> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      // position() passes transaction markers too, so a committed end offset is always reached
      if (consumer.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }
}

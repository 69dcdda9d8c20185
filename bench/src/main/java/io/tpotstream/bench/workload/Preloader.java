package io.tpotstream.bench.workload;

import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.kafka.KafkaConnection;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Writes a synthetic workload into a topic, keyed and compressed as the real producer does. */
public final class Preloader {
  /** What was written and how fast. */
  public record Loaded(SyntheticWorkload.Summary workload, long elapsedNs, long bytes) {
    public double recordsPerSecond() {
      return workload.records() / (elapsedNs / 1e9);
    }
  }

  private Preloader() {}

  /** Generates {@code workload} into {@code topic} and waits until Kafka acknowledged it all. */
  public static Loaded load(String bootstrap, String topic, SyntheticWorkload workload) {
    SyntheticWorkload.Summary[] summary = new SyntheticWorkload.Summary[1];
    Published published = publish(bootstrap, topic, sink -> summary[0] = workload.generate(sink));
    return new Loaded(summary[0], published.elapsedNs(), published.bytes());
  }

  /** What {@link #publish} wrote and how long it took. */
  public record Published(long records, long bytes, long elapsedNs) {}

  /**
   * Writes what {@code generator} gives its sink into {@code topic} (events keyed by request id,
   * heartbeats to their partition, record timestamp = the event's {@code ts}) and waits until Kafka
   * acknowledged it all.
   */
  public static Published publish(
      String bootstrap, String topic, Consumer<SyntheticWorkload.Sink> generator) {
    AtomicReference<Exception> failure = new AtomicReference<>();
    AtomicLong bytes = new AtomicLong();
    AtomicLong records = new AtomicLong();
    long startNs = System.nanoTime();
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(props(bootstrap))) {
      generator.accept(
          (event, partition) -> {
            byte[] value = TokenEventCodec.encode(event);
            bytes.addAndGet(value.length);
            records.incrementAndGet();
            ProducerRecord<String, byte[]> record =
                partition < 0
                    ? new ProducerRecord<>(topic, null, event.ts(), event.requestId(), value)
                    : new ProducerRecord<>(topic, partition, event.ts(), event.producerId(), value);
            producer.send(
                record,
                (metadata, error) -> {
                  if (error != null) {
                    failure.compareAndSet(null, error);
                  }
                });
          });
      producer.flush();
    }
    if (failure.get() != null) {
      throw new IllegalStateException(
          "preloading " + topic + " failed: " + failure.get().getMessage(), failure.get());
    }
    return new Published(records.get(), bytes.get(), System.nanoTime() - startNs);
  }

  private static Properties props(String bootstrap) {
    Properties p = KafkaConnection.of(bootstrap).clientProperties();
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    // as the real producer: idempotent, lz4; bigger batches than it uses, to load fast
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
    p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(128L * 1024 * 1024));
    return p;
  }
}

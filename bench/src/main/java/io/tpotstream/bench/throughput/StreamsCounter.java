package io.tpotstream.bench.throughput;

import io.tpotstream.aggregator.AggregatorConfig;
import io.tpotstream.aggregator.topology.AggregatorTopology;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The ceiling of any Kafka Streams design here: an application with the aggregator's settings
 * ({@link AggregatorTopology#streamsProperties}: exactly-once v2, one stream thread per core, the
 * commit interval, read_committed) over the same topic, whose one processor only counts records. B1
 * runs it as a fresh process beside kcat, a plain consumer and {@code tpot aggregate}.
 */
public final class StreamsCounter {
  private StreamsCounter() {}

  /**
   * {@code BOOTSTRAP TOPIC PARTITIONS RECORDS}: counts until {@code RECORDS} records were
   * processed, then prints {@code records N first_ms last_ms} (the wall-clock times of the first
   * and the last record processed) and exits.
   */
  public static void main(String[] args) throws InterruptedException {
    String bootstrap = args[0];
    String topic = args[1];
    int partitions = Integer.parseInt(args[2]);
    long expected = Long.parseLong(args[3]);
    AggregatorConfig config =
        AggregatorConfig.defaults(bootstrap)
            .withTopics(topic, topic + ".unused-summaries", topic + ".unused-dead")
            .withApplicationId("bench-streams-counter-" + Long.toHexString(System.nanoTime()))
            .withInputPartitions(partitions);
    Properties props = AggregatorTopology.streamsProperties(config);
    AtomicLong count = new AtomicLong();
    AtomicLong firstMs = new AtomicLong(Long.MAX_VALUE);
    CountDownLatch done = new CountDownLatch(1);
    StreamsBuilder builder = new StreamsBuilder();
    builder.stream(topic, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
        .process(
            () ->
                new Processor<byte[], byte[], Void, Void>() {
                  @Override
                  public void process(Record<byte[], byte[]> record) {
                    long n = count.incrementAndGet();
                    if (n == 1) {
                      firstMs.set(System.currentTimeMillis());
                    }
                    if (n == expected) {
                      done.countDown();
                    }
                  }
                });
    try (KafkaStreams streams = new KafkaStreams(builder.build(), props)) {
      streams.start();
      done.await();
      long lastMs = System.currentTimeMillis();
      System.out.println("records " + count.get() + " " + firstMs.get() + " " + lastMs);
      System.out.flush();
      streams.close(Duration.ofSeconds(10));
    }
    System.exit(0);
  }
}

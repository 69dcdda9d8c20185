package io.tpotstream.producer.publish;

import io.tpotstream.producer.Producer;
import io.tpotstream.producer.ProducerRun;
import io.tpotstream.producer.config.ConfigLoader;
import io.tpotstream.producer.config.ProducerConfig;
import java.time.Duration;
import java.util.Map;

/**
 * A producer in its own JVM, stopped by a signal: args are bootstrap servers, topic, base URL. Runs
 * forever until SIGTERM, with the same shutdown hook as {@code tpot produce}.
 */
public final class ChildProducer {
  private ChildProducer() {}

  public static void main(String[] args) {
    ProducerConfig config =
        ConfigLoader.load(
            null,
            Map.of(
                "base_url", args[2],
                "models", "sig",
                "concurrency", "2",
                "duration", "forever",
                "stop_grace", "300ms",
                "warmup", "0"),
            Map.of(),
            w -> {});
    ProducerRun run =
        Producer.start(config, KafkaSettings.of(args[0]).withTopic(args[1]).withPartitions(3));
    run.stopOnShutdown(Duration.ofSeconds(30));
    System.out.println("producer " + run.producerId() + " started");
    run.result().join();
  }
}

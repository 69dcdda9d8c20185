package io.tpotstream.producer.testing;

import io.tpotstream.producer.Producer;
import io.tpotstream.producer.ProducerRun;
import io.tpotstream.producer.RunResult;
import io.tpotstream.producer.config.ConfigLoader;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.testkit.TestKafka;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Runs a real producer against a real server and the test broker, and reads the topic back. */
public final class Runs {
  public static final int PARTITIONS = 3;

  /** A finished run: the producer's result and every record of its topic. */
  public record Finished(RunResult result, List<TopicReader.Rec> records, String topic) {}

  private Runs() {}

  /**
   * Config from {@code keys} (config keys to values), no file, an empty environment; no warm-up
   * unless {@code keys} asks for one, so that a test's requests are the ones it counts.
   */
  public static ProducerConfig config(Map<String, String> keys) {
    return config(keys, Map.of());
  }

  public static ProducerConfig config(Map<String, String> keys, Map<String, String> env) {
    Map<String, String> all = new LinkedHashMap<>();
    all.put("warmup", "0");
    all.putAll(keys);
    return ConfigLoader.load(null, all, env, w -> {});
  }

  /**
   * Runs {@code models} against {@code baseUrl} with the further config {@code keys} to the end,
   * and reads the topic until the final heartbeats.
   */
  public static Finished run(
      TestKafka kafka, String baseUrl, String models, Map<String, String> keys) {
    Map<String, String> all = new LinkedHashMap<>();
    all.put("base_url", baseUrl);
    all.put("models", models);
    all.putAll(keys);
    return run(kafka, config(all));
  }

  /** Runs to the end and reads the topic until the final heartbeats. */
  public static Finished run(TestKafka kafka, ProducerConfig config) {
    String topic = TestKafka.uniqueName("events");
    KafkaSettings settings =
        KafkaSettings.of(kafka.bootstrapServers())
            .withTopic(topic)
            .withPartitions(PARTITIONS)
            .withSetupTimeout(Duration.ofSeconds(20));
    ProducerRun run =
        Producer.start(config, settings, Producer.Outputs.NONE, SimulatorWarmupServer::start);
    RunResult result = run.result().join();
    return new Finished(result, TopicReader.readUntilFinal(kafka, topic, PARTITIONS), topic);
  }
}

package io.tpotstream.common.kafka;

import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The settings of tpot's plain readers of a topic ({@code export}, the live view of {@code run},
 * the benchmarks' consumers): byte keys and values, committed records only (as the aggregator
 * reads), and no offsets committed (they assign partitions and keep their own place).
 */
public final class PlainReader {
  private static final Map<String, String> SETTINGS =
      Map.of(
          ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
          ByteArrayDeserializer.class.getName(),
          ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
          ByteArrayDeserializer.class.getName(),
          ConsumerConfig.ISOLATION_LEVEL_CONFIG,
          "read_committed",
          ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
          "false");

  private PlainReader() {}

  /** {@code base} (the client settings, with any defaults of the reader) and these over it. */
  public static Properties settings(Properties base) {
    Properties p = new Properties();
    p.putAll(base);
    p.putAll(SETTINGS);
    return p;
  }
}

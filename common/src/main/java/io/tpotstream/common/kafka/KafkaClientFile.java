package io.tpotstream.common.kafka;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The one reader of Kafka client properties files ({@code --kafka-config} or {@code
 * --command-config}, the format of Kafka's own tools: Java properties, e.g. {@code
 * security.protocol}, {@code sasl.mechanism}, {@code sasl.jaas.config}, {@code ssl.*}, timeouts).
 * Values are never logged or printed: they may hold passwords.
 */
public final class KafkaClientFile {
  private KafkaClientFile() {}

  /**
   * Every property of {@code file}, sorted by name.
   *
   * @throws KafkaAccessException when the file is missing, unreadable or not a properties file
   */
  public static Map<String, String> read(Path file) {
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      properties.load(reader);
    } catch (NoSuchFileException e) {
      throw new KafkaAccessException(
          "cannot read the Kafka client properties "
              + file
              + ": no such file; check --kafka-config");
    } catch (AccessDeniedException e) {
      throw new KafkaAccessException(
          "cannot read the Kafka client properties "
              + file
              + ": permission denied; check the file's permissions");
    } catch (IOException | IllegalArgumentException e) {
      throw new KafkaAccessException(
          "cannot read the Kafka client properties "
              + file
              + " ("
              + e.getClass().getSimpleName()
              + "): check that it is a Java properties file (key=value lines, UTF-8)",
          e);
    }
    Map<String, String> values = new TreeMap<>();
    properties
        .stringPropertyNames()
        .forEach(name -> values.put(name, properties.getProperty(name)));
    return values;
  }
}

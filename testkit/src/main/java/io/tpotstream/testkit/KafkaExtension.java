package io.tpotstream.testkit;

import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives tests a {@link TestKafka} parameter. The broker is started once per test JVM, on first use:
 * {@code KAFKA_BOOTSTRAP_SERVERS} when set, else a Testcontainers Kafka when Docker is available,
 * else the embedded broker of the {@code broker} module. It stops when the JVM exits.
 *
 * <p>A test that asks for Kafka must be tagged {@code @Tag("slow")}: it then runs in {@code ./mvnw
 * verify} only, never in the fast {@code ./mvnw test} loop (docs/development.md).
 */
public final class KafkaExtension implements ParameterResolver {
  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == TestKafka.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    if (!context.getTags().contains("slow")) {
      throw new ExtensionConfigurationException(
          context.getDisplayName()
              + " uses Kafka: tag its class @Tag(\"slow\") so that it runs in ./mvnw verify only");
    }
    return SharedKafka.get();
  }
}

package io.tpotstream.common.kafka;

/**
 * The one error type for everything between tpot and Kafka that a user must fix: an unreadable
 * client properties file, no broker at the address, failed authentication, a missing ACL, a topic
 * that cannot be created. The message says what happened and what to check, in one line, and never
 * holds a secret. Built by {@link KafkaFailures}.
 */
public final class KafkaAccessException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public KafkaAccessException(String message) {
    super(message);
  }

  public KafkaAccessException(String message, Throwable cause) {
    super(message, cause);
  }
}

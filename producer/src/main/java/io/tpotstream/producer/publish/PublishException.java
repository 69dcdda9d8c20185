package io.tpotstream.producer.publish;

/** Kafka could not be reached or stopped taking events; the message says what to check. */
public final class PublishException extends RuntimeException {
  public PublishException(String message, Throwable cause) {
    super(message, cause);
  }
}

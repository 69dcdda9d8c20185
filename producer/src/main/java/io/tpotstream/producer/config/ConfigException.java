package io.tpotstream.producer.config;

/** A configuration the producer cannot run with; the message says which key and what to change. */
public final class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(message);
  }

  public ConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}

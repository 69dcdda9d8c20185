package io.tpotstream.producer.config;

import java.util.Locale;

/** Which streaming API the target speaks. */
public enum ApiKind {
  /** OpenAI chat completions: {@code POST /v1/chat/completions}, {@code Authorization: Bearer}. */
  OPENAI,
  /** Anthropic messages: {@code POST /v1/messages}, {@code x-api-key}. */
  ANTHROPIC;

  static ApiKind parse(String value) {
    try {
      return valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "config key 'api': unknown API '" + value + "' (expected openai or anthropic)");
    }
  }

  /** The name used in config files and output. */
  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }
}

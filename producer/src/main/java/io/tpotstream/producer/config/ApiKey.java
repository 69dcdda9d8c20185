package io.tpotstream.producer.config;

/**
 * The API key. Its {@code toString} never shows it, so it cannot leak through a log line or a
 * record's printout; {@link #redact(String)} removes it from any text before that text is shown.
 */
public final class ApiKey {
  private static final String MASK = "***";
  private final String value;
  private final String source;

  ApiKey(String value, String source) {
    this.value = value;
    this.source = source;
  }

  /** The key itself, only for the request header. */
  public String reveal() {
    return value;
  }

  /** Where the key came from (config file or environment variable name), safe to print. */
  public String source() {
    return source;
  }

  /** {@code text} with every occurrence of the key replaced by {@code ***}. */
  public String redact(String text) {
    if (text == null || value.isEmpty()) {
      return text;
    }
    return text.replace(value, MASK);
  }

  /** Redacts {@code text} with {@code key}, which may be null (no key: nothing to hide). */
  public static String redact(ApiKey key, String text) {
    return key == null ? text : key.redact(text);
  }

  @Override
  public String toString() {
    return MASK + " (from " + source + ")";
  }
}

package io.tpotstream.producer.config;

/**
 * The API key. Its {@code toString} never shows it, so it cannot leak through a log line or a
 * record's printout; the config's {@link io.tpotstream.common.secret.Secrets} removes it (with
 * every other secret) from any text before that text is shown.
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

  @Override
  public String toString() {
    return MASK + " (from " + source + ")";
  }
}

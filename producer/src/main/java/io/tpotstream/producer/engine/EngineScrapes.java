package io.tpotstream.producer.engine;

import java.util.List;
import java.util.Locale;

/**
 * What scraping the engines' metrics came to over a run, for the result table and the proxy's last
 * lines: {@code engine metrics: 12 scrapes of 1 endpoint, 1 failed (last: …), missing: …}.
 *
 * @param endpoints the endpoints scraped
 * @param scrapes scrapes that were read (of every endpoint)
 * @param failed scrapes that failed
 * @param lastFailure the last failure, one line, masked (null: none)
 * @param missing the mapped metrics some endpoint did not publish, sorted
 * @param skippedLines lines of the bodies that could not be read (skipped)
 */
public record EngineScrapes(
    int endpoints,
    long scrapes,
    long failed,
    String lastFailure,
    List<String> missing,
    long skippedLines) {

  public EngineScrapes {
    missing = List.copyOf(missing);
  }

  /** The one line that says it. */
  public String line() {
    StringBuilder line =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "engine metrics: %,d scrape%s of %d endpoint%s, %,d failed",
                scrapes,
                scrapes == 1 ? "" : "s",
                endpoints,
                endpoints == 1 ? "" : "s",
                failed));
    if (lastFailure != null) {
      line.append(" (last: ").append(lastFailure).append(')');
    }
    if (!missing.isEmpty()) {
      line.append(", missing: ").append(String.join(", ", missing));
    }
    if (skippedLines > 0) {
      line.append(String.format(Locale.ROOT, ", %,d unreadable lines skipped", skippedLines));
    }
    return line.toString();
  }
}

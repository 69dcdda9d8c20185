package io.tpotstream.app;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads durations as users write them: 500us, 500ms, 10s, 1m, 2h (or ISO-8601 such as PT10S). */
final class HumanDuration implements ITypeConverter<Duration> {
  private static final Pattern SHORT = Pattern.compile("(\\d+)\\s*(us|µs|ms|s|m|h)");

  @Override
  public Duration convert(String text) {
    Matcher m = SHORT.matcher(text.trim());
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "us", "µs" -> Duration.ofNanos(n * 1000);
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        default -> Duration.ofHours(n);
      };
    }
    try {
      return Duration.parse(text.trim());
    } catch (DateTimeParseException e) {
      throw new TypeConversionException(
          "invalid duration '" + text + "': write it like 500us, 500ms, 10s, 1m or 1h");
    }
  }
}

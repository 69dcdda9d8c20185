package io.tpotstream.app.cli;

import io.tpotstream.common.Durations;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads durations as users write them ({@link Durations}: 500us, 500ms, 1.5s, 10s, 1m, 2h, 1d; a
 * bare number is in seconds), or ISO-8601 such as PT10S.
 */
final class DurationConverter implements ITypeConverter<Duration> {
  @Override
  public Duration convert(String text) {
    try {
      String t = text.trim();
      return t.startsWith("P") || t.startsWith("p")
          ? Duration.parse(t)
          : Durations.parse("duration", t);
    } catch (DateTimeParseException | IllegalArgumentException e) {
      throw new TypeConversionException(
          "invalid duration '" + text + "': write it like 500us, 500ms, 10s, 1m or 1h");
    }
  }
}

package io.tpotstream.app.cli;

import java.time.Instant;
import picocli.CommandLine.Option;

/**
 * {@code --from}/{@code --to}: the same time range, spelled and read the same way, in every command
 * that reads records ({@code export}, {@code replay}, {@code stats}). It bounds the record
 * timestamp, which is the event's {@code ts} for every record the producer writes.
 */
public final class TimeRangeOptions {
  @Option(
      names = "--from",
      paramLabel = "TIME",
      description = "Only records with timestamp >= this (ISO-8601 instant or epoch ms).")
  String from;

  @Option(
      names = "--to",
      paramLabel = "TIME",
      description = "Only records with timestamp < this (ISO-8601 instant or epoch ms).")
  String to;

  /** The start in epoch ms, or null. */
  public Long fromMs() {
    return parseTime("--from", from);
  }

  /** The end (exclusive) in epoch ms, or null. */
  public Long toMs() {
    Long end = parseTime("--to", to);
    Long start = fromMs();
    if (start != null && end != null && end <= start) {
      throw new IllegalArgumentException(
          "--to " + to + " is not after --from " + from + ": the range would be empty");
    }
    return end;
  }

  /** Parses an ISO-8601 instant or epoch milliseconds; null stays null. */
  static Long parseTime(String option, String text) {
    if (text == null) {
      return null;
    }
    if (!text.isEmpty() && text.chars().allMatch(Character::isDigit)) {
      return Long.parseLong(text);
    }
    try {
      return Instant.parse(text).toEpochMilli();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          option
              + " '"
              + text
              + "' is not a time: use an ISO-8601 instant (2026-12-02T10:00:00Z) or epoch ms");
    }
  }
}

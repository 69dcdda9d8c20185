package io.tpotstream.producer.workload;

import io.tpotstream.producer.config.ConfigException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;

/** The trace formats tpot reads, each with its one reader. */
public enum TraceFormat {
  /** Mooncake's JSON lines, and tpot's superset of them. */
  JSONL("JSON lines (Mooncake's or tpot's)"),
  /** The Azure LLM inference trace CSV. */
  AZURE_CSV("Azure trace CSV");

  private final String description;

  TraceFormat(String description) {
    this.description = description;
  }

  /** The format's name for output. */
  public String describe() {
    return description;
  }

  /**
   * The format named by {@code text}: {@code jsonl}, {@code mooncake} or {@code tpot} (JSON lines),
   * {@code azure} or {@code csv}.
   */
  public static TraceFormat parse(String key, String text) {
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "jsonl", "mooncake", "tpot", "json" -> JSONL;
      case "azure", "csv", "azure-csv" -> AZURE_CSV;
      default ->
          throw new ConfigException(
              key + ": '" + text + "' is not a trace format (use mooncake, tpot or azure)");
    };
  }

  /**
   * The format of {@code file}, told from its first line that is not blank: an object ({@code {})
   * starts JSON lines, a header naming {@code TIMESTAMP} the Azure CSV.
   *
   * @param where names the file in messages ({@code config key 'trace': FILE})
   * @throws ConfigException when it is neither, or the file cannot be read
   */
  public static TraceFormat detect(Path file, String where) {
    try (TraceLines lines = TraceLines.open(file, where)) {
      if (!lines.next()) {
        throw new ConfigException(where + " is empty: a trace has one request a line");
      }
      String first =
          new String(lines.bytes(), 0, Math.min(lines.length(), 200), StandardCharsets.UTF_8);
      String start = first.strip();
      if (start.startsWith("{")) {
        return JSONL;
      }
      if (start.toUpperCase(Locale.ROOT).contains(AzureCsvTraceReader.TIMESTAMP)
          && start.contains(",")) {
        return AZURE_CSV;
      }
      throw new ConfigException(
          where
              + " line "
              + lines.number()
              + " starts neither JSON lines (an object: {\"timestamp\": ...}) nor the Azure CSV"
              + " (a header TIMESTAMP,ContextTokens,GeneratedTokens): check the file, or name its"
              + " format with trace_format (--trace-format)");
    } catch (java.io.IOException e) {
      throw new ConfigException(where + ": cannot read it (" + e.getMessage() + ")");
    }
  }

  /** A reader of {@code file} in this format; {@code where} starts its messages. */
  public TraceReader open(Path file, String where) {
    return read(TraceLines.open(file, where), where);
  }

  /** A reader of {@code lines} in this format (tests give lines from memory). */
  TraceReader read(TraceLines lines, String where) {
    return this == JSONL
        ? new JsonLinesTraceReader(lines, where)
        : new AzureCsvTraceReader(lines, where);
  }
}

package io.tpotstream.app;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.archive.ArchiveCompression;
import io.tpotstream.common.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What a file given to {@code stats} or {@code compare} holds: window summaries (the sink's JSONL
 * or CSV) or token events (an export, or bare events), told by its name ({@code .csv}) and its
 * first line (compressed as the name says). The one place that tells them apart.
 */
public final class RunFile {
  /** What the file holds. */
  public enum Kind {
    /** Window summaries as JSON lines (the sink's {@code --jsonl}, {@code summaries.jsonl}). */
    SUMMARIES,
    /** The sink's summaries CSV. */
    SUMMARIES_CSV,
    /** Token events: export records or bare events. */
    EVENTS,
    /** Neither (or empty, or its first line unreadable). */
    UNKNOWN
  }

  private RunFile() {}

  /** What {@code file} holds, from its name and first non-blank line. */
  public static Kind of(Path file) throws IOException {
    if (file.getFileName().toString().endsWith(".csv")) {
      return Kind.SUMMARIES_CSV;
    }
    String line = firstLine(file);
    if (line == null) {
      return Kind.UNKNOWN;
    }
    if (line.startsWith("window_start,")) {
      return Kind.SUMMARIES_CSV;
    }
    JsonNode first;
    try {
      first = Json.MAPPER.readTree(line);
    } catch (IOException e) {
      return Kind.UNKNOWN;
    }
    if (first == null || !first.isObject()) {
      return Kind.UNKNOWN;
    }
    if (first.has("windowStartMs") && first.has("series")) {
      return Kind.SUMMARIES;
    }
    if (first.has("type") || first.has("value")) {
      return Kind.EVENTS;
    }
    return Kind.UNKNOWN;
  }

  /**
   * Fails with what to use instead when {@code file} holds window summaries rather than token
   * events ({@code command} reads events). A pipe is not looked at: reading its first line here
   * would take it from the command.
   */
  public static void requireEvents(String command, Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      return; // a pipe (stats <(zstdcat f.zst)): its first line is read once, by the command
    }
    Kind kind = of(file);
    if (kind == Kind.SUMMARIES || kind == Kind.SUMMARIES_CSV) {
      throw new IllegalArgumentException(
          file
              + " holds window summaries (written by tpot sink), not token events: "
              + command
              + " reads token events (a tpot export file). To chart these"
              + " summaries use tpot report --summaries FILE (the .jsonl); to compare two runs'"
              + " summaries use tpot compare A B");
    }
  }

  private static String firstLine(Path file) throws IOException {
    try (InputStream raw = Files.newInputStream(file);
        BufferedReader reader =
            new BufferedReader(
                new InputStreamReader(
                    ArchiveCompression.of(file).decompress(raw), StandardCharsets.UTF_8))) {
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        if (!line.isBlank()) {
          return line.strip();
        }
      }
    } catch (IOException e) {
      throw new IOException("cannot read " + file + ": " + e.getMessage(), e);
    }
    return null;
  }
}

package io.tpotstream.aggregator.offline;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import java.util.zip.GZIPInputStream;

/**
 * Reads token events from a JSONL file ({@code .gz} too): either lines as {@code tpot export}
 * writes them ({@code {"key","partition","offset","timestamp","value":{event}}}) or plain token
 * events, one per line. Returns them in (ts, partition, offset) order, the order DESIGN.md's Replay
 * section prescribes.
 */
public final class ExportedEvents {
  private ExportedEvents() {}

  /** One event and where it was in the log (plain lines: partition 0, offset = line number). */
  public record Positioned(TokenEvent event, int partition, long offset, long line) {}

  /**
   * (ts, partition, offset); a final heartbeat comes after the other events of its millisecond, as
   * it did on every partition it was written to (the producer sends it last).
   */
  private static final Comparator<Positioned> LOG_ORDER =
      Comparator.comparingLong((Positioned p) -> p.event().ts())
          .thenComparingInt(p -> p.event().finalHeartbeat() ? 1 : 0)
          .thenComparingInt(Positioned::partition)
          .thenComparingLong(Positioned::offset)
          .thenComparingLong(Positioned::line);

  /**
   * Reads every line; a line that is not a token event is reported to {@code problems} as "line N:
   * reason" and skipped.
   *
   * @throws IOException when the file cannot be read
   */
  public static List<Positioned> read(Path file, Consumer<String> problems) throws IOException {
    List<Positioned> events = new ArrayList<>();
    try (BufferedReader reader = open(file)) {
      String text;
      long line = 0;
      while ((text = reader.readLine()) != null) {
        line++;
        if (text.isBlank()) {
          continue;
        }
        try {
          events.add(parse(text, line));
        } catch (RuntimeException e) {
          problems.accept("line " + line + ": " + e.getMessage());
        }
      }
    }
    events.sort(LOG_ORDER);
    return events;
  }

  static Positioned parse(String text, long line) {
    JsonNode node;
    try {
      node = Json.MAPPER.readTree(text);
    } catch (IOException e) {
      throw new IllegalArgumentException("not JSON: " + firstLine(e.getMessage()));
    }
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException("not a JSON object");
    }
    if (node.has("type") || !node.has("value")) {
      return new Positioned(TokenEventCodec.decode(text), 0, line, line);
    }
    JsonNode value = node.get("value");
    TokenEvent event =
        value.isTextual()
            ? TokenEventCodec.decode(value.asText())
            : TokenEventCodec.decode(value.toString());
    int partition = node.path("partition").asInt(0);
    long offset = node.path("offset").asLong(line);
    return new Positioned(event, partition, offset, line);
  }

  private static BufferedReader open(Path file) throws IOException {
    InputStream in = Files.newInputStream(file);
    if (file.getFileName().toString().endsWith(".gz")) {
      in = new GZIPInputStream(in, 1 << 16);
    }
    return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16);
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unreadable";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }
}

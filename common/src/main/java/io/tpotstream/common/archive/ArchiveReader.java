package io.tpotstream.common.archive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tpotstream.common.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * Reads an archive written by {@code tpot export} (JSONL, gzip when the name ends in {@code .gz}).
 * A plain JSONL of token events is accepted too: each line is then the value, partition 0, offset =
 * line number. A line that is neither is reported with its number and skipped; nothing else is
 * lost.
 */
public final class ArchiveReader {
  /** Told about each line that could not be read. */
  public interface CorruptLineListener {
    void corrupt(long lineNumber, String reason);
  }

  private ArchiveReader() {}

  /** Every readable record of {@code file}, in file order. */
  public static List<ArchivedRecord> readAll(Path file, CorruptLineListener listener)
      throws IOException {
    List<ArchivedRecord> records = new ArrayList<>();
    try (BufferedReader reader = open(file)) {
      String line;
      long lineNumber = 0;
      while ((line = reader.readLine()) != null) {
        lineNumber++;
        if (line.isBlank()) {
          continue;
        }
        try {
          records.add(parse(line, lineNumber));
        } catch (IllegalArgumentException | IOException e) {
          listener.corrupt(lineNumber, e.getMessage());
        }
      }
    }
    return records;
  }

  /** Reads, drops corrupt lines (telling {@code listener}) and sorts in replay order. */
  public static List<ArchivedRecord> readInReplayOrder(Path file, CorruptLineListener listener)
      throws IOException {
    List<ArchivedRecord> records = readAll(file, listener);
    records.sort(ArchivedRecord.REPLAY_ORDER);
    return records;
  }

  static ArchivedRecord parse(String line, long lineNumber) throws IOException {
    JsonNode node;
    try {
      node = Json.MAPPER.readTree(line);
    } catch (IOException e) {
      throw new IllegalArgumentException("not JSON (" + firstLine(e.getMessage()) + ")");
    }
    if (!(node instanceof ObjectNode object)) {
      throw new IllegalArgumentException("not a JSON object");
    }
    if (object.has("value") && object.has("partition") && object.has("offset")) {
      JsonNode value = object.get("value");
      if (!value.isObject()) {
        throw new IllegalArgumentException("value is not a JSON object");
      }
      JsonNode key = object.get("key");
      return new ArchivedRecord(
          key == null || key.isNull() ? null : key.asText(),
          object.get("partition").asInt(),
          object.get("offset").asLong(),
          object.has("timestamp") ? object.get("timestamp").asLong() : value.path("ts").asLong(),
          value);
    }
    if (object.has("type") && object.has("ts")) {
      JsonNode requestId = object.get("requestId");
      return new ArchivedRecord(
          requestId == null ? null : requestId.asText(),
          0,
          lineNumber,
          object.get("ts").asLong(),
          object);
    }
    throw new IllegalArgumentException(
        "neither an exported record (key, partition, offset, timestamp, value) nor a token event");
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

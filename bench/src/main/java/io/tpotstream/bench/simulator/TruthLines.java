package io.tpotstream.bench.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.common.stats.LatencyHistogram;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A simulator truth file read back: per request, its chunks in order, as {@code tpot simulate
 * --truth} wrote them. The gaps come from the sends themselves, not from the simulator's summary.
 */
public final class TruthLines {
  /** One line of the file. */
  public record Chunk(int seq, long sentNs, int tokens, long intendedNs, long pacingErrorNs) {}

  private final Map<String, List<Chunk>> byRequest;

  private TruthLines(Map<String, List<Chunk>> byRequest) {
    this.byRequest = byRequest;
  }

  /** The lines of {@code model} in {@code file}. */
  public static TruthLines read(Path file, String model) {
    Map<String, List<Chunk>> byRequest = new TreeMap<>();
    try {
      for (String line : Files.readAllLines(file)) {
        JsonNode json = Json.MAPPER.readTree(line);
        if (!json.path("model").asText().equals(model)) {
          continue;
        }
        byRequest
            .computeIfAbsent(json.path("requestId").asText(), id -> new ArrayList<>())
            .add(
                new Chunk(
                    json.path("seq").asInt(),
                    json.path("sentNs").asLong(),
                    json.path("tokens").asInt(),
                    json.path("intendedNs").asLong(),
                    json.path("pacingErrorNs").asLong()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the truth file " + file, e);
    }
    byRequest.values().forEach(chunks -> chunks.sort((a, b) -> Integer.compare(a.seq, b.seq)));
    return new TruthLines(byRequest);
  }

  /** Request id to its chunks, by seq. */
  public Map<String, List<Chunk>> requests() {
    return byRequest;
  }

  public long chunks() {
    return byRequest.values().stream().mapToLong(List::size).sum();
  }

  /** The gaps between consecutive sends of each request. */
  public LatencyHistogram gaps() {
    LatencyHistogram gaps = new LatencyHistogram();
    for (List<Chunk> chunks : byRequest.values()) {
      for (int i = 1; i < chunks.size(); i++) {
        gaps.recordNanos(chunks.get(i).sentNs() - chunks.get(i - 1).sentNs());
      }
    }
    return gaps;
  }

  /** The gaps the profile asked for (each chunk's intended wait after the first). */
  public LatencyHistogram intendedGaps() {
    LatencyHistogram gaps = new LatencyHistogram();
    for (List<Chunk> chunks : byRequest.values()) {
      for (int i = 1; i < chunks.size(); i++) {
        gaps.recordNanos(chunks.get(i).intendedNs());
      }
    }
    return gaps;
  }

  /** Every chunk's pacing error, as a distance from its due instant. */
  public LatencyHistogram pacingErrors() {
    LatencyHistogram errors = new LatencyHistogram();
    for (List<Chunk> chunks : byRequest.values()) {
      chunks.forEach(chunk -> errors.recordNanos(Math.abs(chunk.pacingErrorNs())));
    }
    return errors;
  }
}

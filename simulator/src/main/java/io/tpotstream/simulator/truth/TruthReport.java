package io.tpotstream.simulator.truth;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.SortedMap;

/**
 * What {@code GET /truth} returns.
 *
 * @param seed the run seed (repeat the run with {@code --seed})
 * @param pacing the pacing error over every model, against its 0.2 ms p99 limit
 * @param models per model
 * @param truthFile the JSONL file's path and line counts, null without {@code --truth}
 */
@JsonPropertyOrder({"seed", "pacing", "models", "truthFile"})
public record TruthReport(
    long seed, Pacing pacing, SortedMap<String, ModelTruth> models, FileStatus truthFile) {

  /**
   * @param linesDropped lines lost because the writer fell more than its queue behind
   */
  @JsonPropertyOrder({"path", "linesWritten", "linesDropped"})
  public record FileStatus(String path, long linesWritten, long linesDropped) {}
}

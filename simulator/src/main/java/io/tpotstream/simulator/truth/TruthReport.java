package io.tpotstream.simulator.truth;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.SortedMap;

/**
 * What {@code GET /truth} returns.
 *
 * @param seed the run seed (repeat the run with {@code --seed})
 * @param models per model
 * @param truthFile the JSONL file's path and line counts, null without {@code --truth}
 */
@JsonPropertyOrder({"seed", "models", "truthFile"})
public record TruthReport(long seed, SortedMap<String, ModelTruth> models, FileStatus truthFile) {

  /**
   * @param linesDropped lines lost because the writer fell more than its queue behind
   */
  @JsonPropertyOrder({"path", "linesWritten", "linesDropped"})
  public record FileStatus(String path, long linesWritten, long linesDropped) {}
}

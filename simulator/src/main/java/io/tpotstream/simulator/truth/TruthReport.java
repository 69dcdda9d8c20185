package io.tpotstream.simulator.truth;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.SortedMap;

/**
 * What {@code GET /truth} returns.
 *
 * @param seed the run seed (repeat the run with {@code --seed})
 * @param pacing the pacing error over every model, against its 0.2 ms p99 limit
 * @param prefixCache the prefix cache's size and use, null without a cache
 * @param models per model
 * @param truthFile the JSONL file's path and line counts, null without {@code --truth}
 */
@JsonPropertyOrder({"seed", "pacing", "prefixCache", "models", "truthFile"})
public record TruthReport(
    long seed,
    Pacing pacing,
    CacheStatus prefixCache,
    SortedMap<String, ModelTruth> models,
    FileStatus truthFile) {

  /**
   * @param capacityBlocks the most blocks it holds
   * @param heldBlocks blocks held now
   * @param evictedBlocks blocks evicted to make room since start
   */
  @JsonPropertyOrder({"capacityBlocks", "heldBlocks", "evictedBlocks"})
  public record CacheStatus(int capacityBlocks, int heldBlocks, long evictedBlocks) {}

  /**
   * @param linesDropped lines lost because the writer fell more than its queue behind
   */
  @JsonPropertyOrder({"path", "linesWritten", "linesDropped"})
  public record FileStatus(String path, long linesWritten, long linesDropped) {}
}

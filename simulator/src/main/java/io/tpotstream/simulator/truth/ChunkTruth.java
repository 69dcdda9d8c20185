package io.tpotstream.simulator.truth;

/**
 * One output chunk as the simulator sent it.
 *
 * @param seq 0-based output-chunk index
 * @param dueNs when the pacer scheduled it ({@link System#nanoTime()})
 * @param sentNs {@link System#nanoTime()} right after the write returned
 * @param tokens tokens in the chunk
 */
public record ChunkTruth(int seq, long dueNs, long sentNs, int tokens) {
  /** The pacing error of this chunk, in ns: how late the write was. */
  public long pacingErrorNs() {
    return sentNs - dueNs;
  }
}

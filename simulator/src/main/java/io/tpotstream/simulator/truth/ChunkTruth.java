package io.tpotstream.simulator.truth;

/**
 * One output chunk as the simulator sent it.
 *
 * @param seq 0-based output-chunk index
 * @param intendedNs the wait its profile asked for before it: the TTFT for chunk 0 (from the
 *     request's arrival), else the gap from the previous chunk
 * @param dueNs when it was due ({@link System#nanoTime()}): the arrival + TTFT for chunk 0, else
 *     the previous chunk's send + the gap (its due instant + the gap under a {@code catchUp}
 *     profile)
 * @param sentNs {@link System#nanoTime()} right after the write returned
 * @param tokens tokens in the chunk
 */
public record ChunkTruth(int seq, long intendedNs, long dueNs, long sentNs, int tokens) {
  /**
   * The pacing error of this chunk, in ns: how much later than due it went out (negative: earlier),
   * which is also how much longer than intended its gap (or, for chunk 0, its TTFT) was.
   */
  public long pacingErrorNs() {
    return sentNs - dueNs;
  }
}

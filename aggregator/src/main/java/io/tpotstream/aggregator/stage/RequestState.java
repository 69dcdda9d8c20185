package io.tpotstream.aggregator.stage;

import java.nio.ByteBuffer;

/**
 * What the aggregator remembers of one request between its events (kept small: it is written on
 * every event).
 *
 * @param series the partition's id of the series the request's samples go to
 * @param lastTsMs {@code ts} of its latest event (epoch ms), for abandonment
 * @param started whether its {@code start} event was seen
 * @param scheduleLagNs the start's schedule lag in ns, or {@link #NO_LAG} (closed loop)
 * @param chunks output-token chunks seen
 * @param tokens output tokens in those chunks (1 per chunk unless the chunk said)
 * @param lastSeq {@code seq} of the latest chunk, -1 before the first
 * @param firstElapsedNs {@code elapsedNs} of the first chunk seen
 * @param lastElapsedNs {@code elapsedNs} of the latest chunk
 * @param firstChunkTokens tokens of the first chunk seen
 */
record RequestState(
    int series,
    long lastTsMs,
    boolean started,
    long scheduleLagNs,
    int chunks,
    long tokens,
    int lastSeq,
    long firstElapsedNs,
    long lastElapsedNs,
    int firstChunkTokens) {

  static final long NO_LAG = Long.MIN_VALUE;
  private static final int BYTES = 1 + 8 + 8 + 4 + 8 + 4 + 8 + 8 + 4 + 4;

  static RequestState fresh(int series, long tsMs) {
    return new RequestState(series, tsMs, false, NO_LAG, 0, 0, -1, 0, 0, 0);
  }

  boolean hasLag() {
    return scheduleLagNs != NO_LAG;
  }

  byte[] encode() {
    return ByteBuffer.allocate(BYTES)
        .put((byte) (started ? 1 : 0))
        .putLong(lastTsMs)
        .putLong(scheduleLagNs)
        .putInt(chunks)
        .putLong(tokens)
        .putInt(lastSeq)
        .putLong(firstElapsedNs)
        .putLong(lastElapsedNs)
        .putInt(firstChunkTokens)
        .putInt(series)
        .array();
  }

  static RequestState decode(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    boolean started = b.get() == 1;
    long lastTsMs = b.getLong();
    long lag = b.getLong();
    int chunks = b.getInt();
    long tokens = b.getLong();
    int lastSeq = b.getInt();
    long first = b.getLong();
    long last = b.getLong();
    int firstTokens = b.getInt();
    int series = b.getInt();
    return new RequestState(
        series, lastTsMs, started, lag, chunks, tokens, lastSeq, first, last, firstTokens);
  }
}

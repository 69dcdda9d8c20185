package io.tpotstream.aggregator.stage1;

import io.tpotstream.common.binary.BinaryReader;
import io.tpotstream.common.binary.BinaryWriter;

/**
 * What stage 1 remembers of one request between its events, in memory; written to the store at
 * commit when it changed ({@link #dirty}).
 */
final class OpenRequest {
  static final long NO_LAG = Long.MIN_VALUE;
  private static final int FORMAT = 1;

  final RequestKey key;

  /** The partition's id of the series the request's samples go to. */
  int series;

  /** {@code ts} of its latest event (epoch ms), for abandonment. */
  long lastTsMs;

  /** Whether its {@code start} event was seen. */
  boolean started;

  /** A warm-up request: counted once in {@code warmupRequests}, in no other statistic. */
  boolean warmup;

  /** The start's schedule lag in ns, or {@link #NO_LAG} (closed loop). */
  long scheduleLagNs = NO_LAG;

  /** Output-token chunks seen. */
  int chunks;

  /** Output tokens in those chunks (1 per chunk unless the chunk said). */
  long tokens;

  /** {@code seq} of the latest chunk, -1 before the first. */
  int lastSeq = -1;

  long firstElapsedNs;
  long lastElapsedNs;
  int firstChunkTokens;

  /** Abandoned (counted once as such), kept so that its later events count nothing more. */
  boolean abandoned;

  /** Changed since the last commit. */
  boolean dirty;

  /** Over (ended, failed or abandoned): to be deleted from the store. */
  boolean removed;

  /** The store holds an entry for it. */
  boolean persisted;

  OpenRequest(RequestKey key, int series, long tsMs) {
    this.key = key;
    this.series = series;
    this.lastTsMs = tsMs;
  }

  boolean hasLag() {
    return scheduleLagNs != NO_LAG;
  }

  void writeTo(BinaryWriter out) {
    out.writeByte(FORMAT)
        .writeByte((started ? 1 : 0) | (warmup ? 2 : 0) | (abandoned ? 4 : 0))
        .writeVarLong(series)
        .writeSigned(lastTsMs)
        .writeSigned(scheduleLagNs)
        .writeVarLong(chunks)
        .writeVarLong(tokens)
        .writeSigned(lastSeq)
        .writeSigned(firstElapsedNs)
        .writeSigned(lastElapsedNs)
        .writeVarLong(firstChunkTokens);
  }

  static OpenRequest readFrom(RequestKey key, BinaryReader in) {
    int format = in.readByte();
    if (format != FORMAT) {
      throw new IllegalArgumentException(
          "request state in format " + format + ", this aggregator reads " + FORMAT);
    }
    int flags = in.readByte();
    OpenRequest r = new OpenRequest(key, in.readVarInt(), 0);
    r.started = (flags & 1) != 0;
    r.warmup = (flags & 2) != 0;
    r.abandoned = (flags & 4) != 0;
    r.lastTsMs = in.readSigned();
    r.scheduleLagNs = in.readSigned();
    r.chunks = in.readVarInt();
    r.tokens = in.readVarLong();
    r.lastSeq = (int) in.readSigned();
    r.firstElapsedNs = in.readSigned();
    r.lastElapsedNs = in.readSigned();
    r.firstChunkTokens = in.readVarInt();
    r.persisted = true;
    return r;
  }
}

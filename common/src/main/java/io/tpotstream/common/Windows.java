package io.tpotstream.common;

import java.time.Duration;
import java.time.Instant;

/** Tumbling event-time windows aligned to the epoch: [k·size, (k+1)·size) in ms. */
public final class Windows {
  private Windows() {}

  /** Start (epoch ms) of the window of {@code size} holding {@code tsMs}. */
  public static long startOf(long tsMs, Duration size) {
    long sizeMs = size.toMillis();
    return Math.floorDiv(tsMs, sizeMs) * sizeMs;
  }

  /** ISO-8601 UTC form of an epoch-ms instant, as summaries and CSV rows write it. */
  public static String iso(long epochMs) {
    return Instant.ofEpochMilli(epochMs).toString();
  }
}

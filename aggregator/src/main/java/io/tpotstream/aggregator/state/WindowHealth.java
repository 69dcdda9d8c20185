package io.tpotstream.aggregator.state;

import io.tpotstream.common.binary.BinaryReader;
import io.tpotstream.common.binary.BinaryWriter;
import io.tpotstream.common.summary.WindowStats;

/**
 * The producers' own health in one open window (docs/design.md, "Client lag"): the worst pause and
 * the worst event-loop lag they reported, in µs, and whether the working set must write it at the
 * next commit. Both stages keep one per window: stage 1 from heartbeats, stage 2 merging the
 * partitions' values.
 */
public final class WindowHealth {
  private static final long NONE = Long.MIN_VALUE;

  private long pauseMaxUs = NONE;
  private long lagMaxUs = NONE;
  private boolean changed;
  private boolean persisted;

  /** Keeps the larger pause. */
  public void pause(long micros) {
    if (micros > pauseMaxUs) {
      pauseMaxUs = micros;
      changed = true;
    }
  }

  /** Keeps the larger loop lag. */
  public void lag(long micros) {
    if (micros > lagMaxUs) {
      lagMaxUs = micros;
      changed = true;
    }
  }

  /** True once any producer reported a pause or a lag for this window. */
  public boolean known() {
    return pauseMaxUs >= 0 || lagMaxUs >= 0;
  }

  public long pauseMaxUs() {
    return pauseMaxUs;
  }

  public long lagMaxUs() {
    return lagMaxUs;
  }

  /** Notes what is known in {@code stats} (the window's summary shows it). */
  public void addTo(WindowStats stats) {
    if (pauseMaxUs >= 0) {
      stats.clientPause(pauseMaxUs);
    }
    if (lagMaxUs >= 0) {
      stats.clientLag(lagMaxUs);
    }
  }

  /**
   * The value to write at this commit, or null when nothing changed since the last one; once
   * returned it counts as written.
   */
  public byte[] changes(BinaryWriter writer) {
    if (!changed) {
      return null;
    }
    changed = false;
    persisted = true;
    return writer.reset().writeSigned(pauseMaxUs).writeSigned(lagMaxUs).toByteArray();
  }

  /** Loads a value {@link #changes} wrote (restore or migration). */
  public void restore(BinaryReader in) {
    pauseMaxUs = in.readSigned();
    lagMaxUs = in.readSigned();
    persisted = true;
  }

  /** True when the store holds a value for this window (to delete once it closes). */
  public boolean persisted() {
    return persisted;
  }
}

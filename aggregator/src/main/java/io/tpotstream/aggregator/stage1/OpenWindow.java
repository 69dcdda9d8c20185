package io.tpotstream.aggregator.stage1;

import io.tpotstream.aggregator.partial.WindowCounts;
import io.tpotstream.aggregator.state.WindowHealth;
import java.util.Arrays;

/** One open window of a partition: its series' counts by series id, and the producers' health. */
final class OpenWindow {
  /** One series' counts in one open window; {@code changed} since the last write. */
  static final class Slot {
    WindowCounts counts = new WindowCounts();
    boolean changed;
    boolean persisted;
  }

  final long startMs;
  Slot[] slots = new Slot[4];
  final WindowHealth health = new WindowHealth();

  OpenWindow(long startMs) {
    this.startMs = startMs;
  }

  /** The slot of {@code series}, made on first use. */
  Slot slot(int series) {
    if (series >= slots.length) {
      slots = Arrays.copyOf(slots, Math.max(series + 1, slots.length * 2));
    }
    Slot slot = slots[series];
    if (slot == null) {
      slot = new Slot();
      slots[series] = slot;
    }
    return slot;
  }
}

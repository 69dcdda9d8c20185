package io.tpotstream.aggregator.stage1;

import io.tpotstream.aggregator.partial.WindowCounts;
import io.tpotstream.aggregator.state.WindowHealth;
import java.util.Arrays;
import java.util.function.IntFunction;

/** One open window of a partition: its series' counts by series id, and the producers' health. */
final class OpenWindow {
  /** One series' counts in one open window; {@code changed} since the last write. */
  static final class Slot {
    WindowCounts counts;
    boolean changed;
    boolean persisted;

    Slot(WindowCounts counts) {
      this.counts = counts;
    }
  }

  final long startMs;
  Slot[] slots = new Slot[4];
  final WindowHealth health = new WindowHealth();

  OpenWindow(long startMs) {
    this.startMs = startMs;
  }

  /** The slot of {@code series}, made on first use with {@code spares}' counts for it. */
  Slot slot(int series, IntFunction<WindowCounts> spares) {
    if (series >= slots.length) {
      slots = Arrays.copyOf(slots, Math.max(series + 1, slots.length * 2));
    }
    Slot slot = slots[series];
    if (slot == null) {
      slot = new Slot(spares.apply(series));
      slots[series] = slot;
    }
    return slot;
  }
}

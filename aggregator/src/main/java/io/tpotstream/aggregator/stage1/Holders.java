package io.tpotstream.aggregator.stage1;

import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeSet;

/**
 * The producers of one partition that may hold its windows, ordered by watermark, so that a
 * heartbeat finds the lowest holding watermark without visiting every producer (a partition of
 * thousands of producers, or of forged ids, costs a log of them per heartbeat, not all of them). A
 * producer leaves when it sends its final heartbeat, is found silent past the producer timeout (it
 * comes back with its next heartbeat) or is pruned.
 */
final class Holders {
  private record Entry(long watermarkMs, String producerId) {}

  private static final Comparator<Entry> ORDER =
      Comparator.comparingLong(Entry::watermarkMs).thenComparing(Entry::producerId);

  private final TreeSet<Entry> byWatermark = new TreeSet<>(ORDER);
  private int notFinal; // producers known here that are not final, holding or silent
  private long highestFinalMs = CloseTime.NONE;

  /** Rebuilds the index from every known producer (after a load). */
  void rebuild(Map<String, WorkingSet.Producer> producers) {
    byWatermark.clear();
    notFinal = 0;
    highestFinalMs = CloseTime.NONE;
    producers.forEach((id, p) -> added(id, p.mark()));
  }

  /** {@code id}'s mark changed from {@code before} (null: new) to {@code now}. */
  void changed(String id, CloseTime.Mark before, CloseTime.Mark now) {
    if (before != null) {
      removed(id, before);
    }
    added(id, now);
  }

  /** {@code id}, whose mark was {@code mark}, is forgotten. */
  void removed(String id, CloseTime.Mark mark) {
    if (!mark.isFinal()) {
      notFinal--;
      byWatermark.remove(new Entry(mark.watermarkMs(), id));
    }
  }

  private void added(String id, CloseTime.Mark mark) {
    if (mark.isFinal()) {
      highestFinalMs = Math.max(highestFinalMs, mark.watermarkMs());
    } else {
      notFinal++;
      byWatermark.add(new Entry(mark.watermarkMs(), id));
    }
  }

  /** True when every producer known here is final (and there is one). */
  boolean allFinal(int producers) {
    return producers > 0 && notFinal == 0;
  }

  /** True when some producer is not final. */
  boolean anyNotFinal() {
    return notFinal > 0;
  }

  /** The highest watermark a final producer sent here, or {@link CloseTime#NONE}. */
  long highestFinalMs() {
    return highestFinalMs;
  }

  /**
   * The lowest watermark of the producers that hold the partition at {@code clockMs}, or {@link
   * Long#MAX_VALUE} for none; those found silent past the timeout leave the index on the way.
   */
  long lowestHoldingMs(
      Map<String, WorkingSet.Producer> producers, long clockMs, long producerTimeoutMs) {
    Iterator<Entry> lowest = byWatermark.iterator();
    while (lowest.hasNext()) {
      Entry e = lowest.next();
      WorkingSet.Producer p = producers.get(e.producerId());
      if (p != null && p.mark().holds(clockMs, producerTimeoutMs)) {
        return e.watermarkMs();
      }
      lowest.remove(); // silent: it holds again from its next heartbeat
    }
    return Long.MAX_VALUE;
  }
}

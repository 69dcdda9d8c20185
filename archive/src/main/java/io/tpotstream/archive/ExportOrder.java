package io.tpotstream.archive;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Puts the records of a topic's partitions, polled in whatever interleaving the consumer returns
 * them, into the replay order ({@link ArchivedRecord#REPLAY_ORDER}: ts, a final heartbeat last in
 * its millisecond, partition, offset) before they are written, so that {@code replay} can send an
 * export as it reads it instead of reading and sorting it whole first.
 *
 * <p>A k-way merge over one lane per partition. A partition is nearly in ts order: one producer's
 * events reach its publisher within milliseconds of their timestamps, and several producers' clocks
 * differ by little; so a lane also sorts the few records that come below the ones before them. A
 * record is written once every partition that can still deliver has delivered a record more than
 * {@link #DISORDER_MS} after it: a later record of that partition is then assumed to come after it
 * too. The result is in the replay order exactly when no partition goes back in time by more than
 * that, and {@link #inReplayOrder()} says whether it is (the file is complete either way). {@link
 * #waiting(int)} lets the consumer pause a partition that runs ahead, so that what waits stays
 * bounded.
 */
public final class ExportOrder {
  /**
   * How far back in time a partition's records may go with the output still in the replay order:
   * far above one producer's publishing delay and the clock differences of hosts kept by NTP.
   */
  public static final long DISORDER_MS = 1_000;

  /** Where the merged records go, in order. */
  @FunctionalInterface
  public interface Sink {
    void write(ConsumerRecord<byte[], byte[]> record) throws IOException;
  }

  /** One waiting record and what its place in the replay order is. */
  private record Waiting(ConsumerRecord<byte[], byte[]> record, long ts, boolean isFinal) {}

  /** The waiting records of one partition, in the replay order. */
  private static final class Lane {
    final int partition;

    /** The records that came in order: each after the one before it. */
    final ArrayDeque<Waiting> inOrder = new ArrayDeque<>();

    /** The few that came below the last one in order, sorted. */
    final PriorityQueue<Waiting> late = new PriorityQueue<>(ExportOrder::compare);

    long maxTs = Long.MIN_VALUE;
    boolean finished;

    Lane(int partition) {
      this.partition = partition;
    }

    boolean isEmpty() {
      return inOrder.isEmpty() && late.isEmpty();
    }

    Waiting first() {
      Waiting a = inOrder.peekFirst();
      Waiting b = late.peek();
      return a == null ? b : b == null || compare(a, b) <= 0 ? a : b;
    }

    Waiting takeFirst() {
      Waiting first = first();
      if (first == inOrder.peekFirst()) {
        inOrder.pollFirst();
      } else {
        late.poll();
      }
      return first;
    }
  }

  private final Sink sink;
  private final ArchiveLines lines = new ArchiveLines();
  private final Map<Integer, Lane> lanes = new HashMap<>();
  private final PriorityQueue<Lane> heads =
      new PriorityQueue<>((a, b) -> compare(a.first(), b.first()));
  private final AtomicIntegerArray waitingCounts;
  private final AtomicLongArray latest;

  /** The least of the open partitions' latest timestamps at the last {@link #writeReady()}. */
  private volatile long open = Long.MIN_VALUE;

  private Waiting last;
  private boolean inOrder = true;

  /**
   * @param partitions the partition numbers that will be read; every one of them must deliver a
   *     record or be {@link #finish finished} before anything is written
   */
  public ExportOrder(Iterable<Integer> partitions, Sink sink) {
    this.sink = sink;
    int max = 0;
    for (int p : partitions) {
      lanes.put(p, new Lane(p));
      max = Math.max(max, p);
    }
    waitingCounts = new AtomicIntegerArray(max + 1);
    latest = new AtomicLongArray(max + 1);
  }

  /** Takes one polled record (call {@link #writeReady()} after a batch of them). */
  public void add(ConsumerRecord<byte[], byte[]> record) {
    Lane lane = lanes.get(record.partition());
    if (lane == null || lane.finished) {
      throw new IllegalStateException(
          "a record of partition " + record.partition() + ", which was not expected to deliver");
    }
    ArchiveLines.ValueFacts facts = lines.facts(record.value(), record.timestamp());
    Waiting w = new Waiting(record, facts.ts(), facts.isFinal());
    lane.maxTs = Math.max(lane.maxTs, w.ts());
    latest.set(lane.partition, lane.maxTs);
    waitingCounts.incrementAndGet(lane.partition);
    Waiting first = lane.first();
    Waiting tail = lane.inOrder.peekLast();
    if (tail == null || compare(tail, w) <= 0) {
      lane.inOrder.addLast(w);
    } else {
      lane.late.add(w);
    }
    if (first == null) {
      heads.add(lane);
    } else if (compare(w, first) < 0) {
      heads.remove(lane); // its first record changed: its place among the lanes too
      heads.add(lane);
    }
  }

  /** Says that {@code partition} has delivered its last record; writes what this frees. */
  public void finish(int partition) throws IOException {
    Lane lane = lanes.get(partition);
    if (lane != null && !lane.finished) {
      lane.finished = true;
      writeReady();
    }
  }

  /**
   * Says that no partition will deliver more (the export ends, at the end offsets or stopped before
   * them) and writes every record still waiting.
   */
  public void finishAll() throws IOException {
    lanes.values().forEach(lane -> lane.finished = true);
    writeReady();
  }

  /** Records of {@code partition} waiting to be written (read from any thread). */
  public int waiting(int partition) {
    return partition < waitingCounts.length() ? waitingCounts.get(partition) : 0;
  }

  /**
   * True when {@code partition} has more than {@code limit} records waiting and is ahead of the
   * partition that holds the others back, so that pausing it lets the waiting shrink (read from any
   * thread; the partition that holds the others back is never paused: its records free theirs).
   */
  public boolean runsAhead(int partition, int limit) {
    return waiting(partition) > limit && latest.get(partition) > open;
  }

  /**
   * True when every record written so far came in the replay order (a partition that went back in
   * time by more than {@link #DISORDER_MS} makes it false: the merge cannot mend that).
   */
  public boolean inReplayOrder() {
    return inOrder;
  }

  /**
   * Writes every waiting record that is sure of its place: one more than {@link #DISORDER_MS}
   * before the latest record of every partition that can still deliver.
   */
  public void writeReady() throws IOException {
    long open = Long.MAX_VALUE;
    for (Lane lane : lanes.values()) {
      if (!lane.finished) {
        open = Math.min(open, lane.maxTs);
      }
    }
    this.open = open;
    while (!heads.isEmpty()) {
      Lane lane = heads.peek();
      Waiting next = lane.first();
      if (open != Long.MAX_VALUE && (open == Long.MIN_VALUE || next.ts() >= open - DISORDER_MS)) {
        return;
      }
      heads.poll();
      lane.takeFirst();
      waitingCounts.decrementAndGet(lane.partition);
      if (last != null && compare(last, next) > 0) {
        inOrder = false;
      }
      last = next;
      sink.write(next.record());
      if (!lane.isEmpty()) {
        heads.add(lane);
      }
    }
  }

  /** The replay order of two waiting records. */
  private static int compare(Waiting a, Waiting b) {
    return ArchivedRecord.replayOrder(
        a.ts(),
        a.isFinal(),
        a.record().partition(),
        a.record().offset(),
        b.ts(),
        b.isFinal(),
        b.record().partition(),
        b.record().offset());
  }
}

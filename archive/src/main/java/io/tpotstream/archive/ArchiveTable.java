package io.tpotstream.archive;

import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;

/**
 * The records of an archive in columns of primitives that point into the file's uncompressed
 * blocks: millions of records cost a few arrays instead of millions of objects (the profile of the
 * first version showed the garbage collector taking more CPU than reading the lines). A table is
 * filled one block at a time ({@link #append}) and then put in the replay order ({@link #sort}).
 */
final class ArchiveTable {
  final java.util.List<byte[]> blocks = new java.util.ArrayList<>();
  int size;
  long[] ts;
  long[] offset;
  long[] timestamp;
  long[] line;
  int[] partition;
  int[] flags;
  int[] block;
  int[] keyStart;
  int[] keyLength;
  int[] valueStart;
  int[] valueLength;
  final Map<Integer, ArchivedRecord.Heartbeat> heartbeats = new HashMap<>();

  /** Row of the i-th record in replay order, once sorted. */
  int[] order;

  // bytes of rows that are not where the file's block has them (lines in another layout)
  private int arenaBlock = -1;
  private byte[] arena;
  private int arenaLength;

  ArchiveTable(int capacity) {
    int c = Math.max(16, capacity);
    ts = new long[c];
    offset = new long[c];
    timestamp = new long[c];
    line = new long[c];
    partition = new int[c];
    flags = new int[c];
    block = new int[c];
    keyStart = new int[c];
    keyLength = new int[c];
    valueStart = new int[c];
    valueLength = new int[c];
  }

  /** Adds a block; rows added next refer to it by the returned index. */
  int addBlock(byte[] bytes) {
    blocks.add(bytes);
    return blocks.size() - 1;
  }

  /** The block of the arena, for rows whose bytes were put there. */
  int arenaBlock() {
    if (arenaBlock < 0) {
      arena = new byte[1 << 12];
      arenaBlock = addBlock(arena);
    }
    return arenaBlock;
  }

  /** Copies {@code bytes[from, from+length)} into the arena and returns where it starts there. */
  int putInArena(byte[] bytes, int from, int length) {
    arenaBlock();
    if (arenaLength + length > arena.length) {
      arena = Arrays.copyOf(arena, Math.max(arena.length * 2, arenaLength + length));
      blocks.set(arenaBlock, arena);
    }
    System.arraycopy(bytes, from, arena, arenaLength, length);
    int at = arenaLength;
    arenaLength += length;
    return at;
  }

  /** Adds one row (a record); {@code keyStart}/{@code valueStart} -1 for null. */
  void add(
      int blockIndex,
      int keyStartAt,
      int keyLengthOf,
      int valueStartAt,
      int valueLengthOf,
      int partitionOf,
      long offsetOf,
      long timestampOf,
      long tsOf,
      int flagsOf,
      ArchivedRecord.Heartbeat heartbeat,
      long lineOf) {
    if (size == ts.length) {
      grow(size * 2);
    }
    int r = size++;
    block[r] = blockIndex;
    keyStart[r] = keyStartAt;
    keyLength[r] = keyLengthOf;
    valueStart[r] = valueStartAt;
    valueLength[r] = valueLengthOf;
    partition[r] = partitionOf;
    offset[r] = offsetOf;
    timestamp[r] = timestampOf;
    ts[r] = tsOf;
    flags[r] = flagsOf;
    line[r] = lineOf;
    if (heartbeat != null) {
      heartbeats.put(r, heartbeat);
    }
  }

  /** Removes the row added last (a record outside the time range). */
  void dropLast() {
    size--;
    heartbeats.remove(size);
  }

  /**
   * Numbers this part's rows (numbered from 1 within its block) from the file's start: moves their
   * line numbers up by {@code firstLine - 1}, and gives a bare event its line number as offset.
   */
  void renumber(long firstLine) {
    for (int i = 0; i < size; i++) {
      line[i] += firstLine - 1;
      if (offset[i] == Long.MIN_VALUE) {
        offset[i] = line[i]; // a bare event's offset is its line number, known only now
      }
    }
  }

  /**
   * Appends every row of {@code part} (already {@link #renumber renumbered}) and the blocks they
   * refer to: a block none of whose records are in a {@code --from}/{@code --to} range is not kept.
   */
  void append(ArchiveTable part) {
    int[] kept = new int[part.blocks.size()];
    Arrays.fill(kept, -1);
    for (int i = 0; i < part.size; i++) {
      int b = part.block[i];
      if (kept[b] < 0) {
        kept[b] = blocks.size();
        blocks.add(part.blocks.get(b));
      }
    }
    if (size + part.size > ts.length) {
      grow(Math.max(size + part.size, ts.length * 2));
    }
    int n = part.size;
    System.arraycopy(part.ts, 0, ts, size, n);
    System.arraycopy(part.offset, 0, offset, size, n);
    System.arraycopy(part.timestamp, 0, timestamp, size, n);
    System.arraycopy(part.line, 0, line, size, n);
    System.arraycopy(part.partition, 0, partition, size, n);
    System.arraycopy(part.flags, 0, flags, size, n);
    System.arraycopy(part.keyStart, 0, keyStart, size, n);
    System.arraycopy(part.keyLength, 0, keyLength, size, n);
    System.arraycopy(part.valueStart, 0, valueStart, size, n);
    System.arraycopy(part.valueLength, 0, valueLength, size, n);
    for (int i = 0; i < n; i++) {
      block[size + i] = kept[part.block[i]];
    }
    part.heartbeats.forEach((row, hb) -> heartbeats.put(row + size, hb));
    size += n;
  }

  private void grow(int capacity) {
    ts = Arrays.copyOf(ts, capacity);
    offset = Arrays.copyOf(offset, capacity);
    timestamp = Arrays.copyOf(timestamp, capacity);
    line = Arrays.copyOf(line, capacity);
    partition = Arrays.copyOf(partition, capacity);
    flags = Arrays.copyOf(flags, capacity);
    block = Arrays.copyOf(block, capacity);
    keyStart = Arrays.copyOf(keyStart, capacity);
    keyLength = Arrays.copyOf(keyLength, capacity);
    valueStart = Arrays.copyOf(valueStart, capacity);
    valueLength = Arrays.copyOf(valueLength, capacity);
  }

  /**
   * Puts the rows in the replay order: ts, final heartbeat last in its millisecond, partition,
   * offset, line. The usual case is one sort of 64-bit keys (ts, final flag and the row's rank by
   * partition, offset and line, packed); a table whose keys do not fit (an archive spanning more
   * than a few years, or billions of rows) is sorted with a comparator.
   */
  void sort() {
    int n = size;
    if (n == 0) {
      order = new int[0];
      return;
    }
    long minTs = Long.MAX_VALUE;
    long maxTs = Long.MIN_VALUE;
    for (int r = 0; r < n; r++) {
      minTs = Math.min(minTs, ts[r]);
      maxTs = Math.max(maxTs, ts[r]);
    }
    int rankBits = 64 - Long.numberOfLeadingZeros(n);
    long range = maxTs - minTs;
    int tsBits = range < 0 ? 64 : 64 - Long.numberOfLeadingZeros(range);
    int[] rowOfRank = rowsByPartitionOffsetLine();
    if (tsBits + 1 + rankBits > 63) {
      order = sortWithComparator(rowOfRank);
      return;
    }
    long[] keys = new long[n];
    for (int rank = 0; rank < n; rank++) {
      int r = rowOfRank[rank];
      long finalBit = (flags[r] & ArchivedRecord.FINAL) != 0 ? 1 : 0;
      keys[rank] = ((ts[r] - minTs) << (rankBits + 1)) | (finalBit << rankBits) | rank;
    }
    Arrays.parallelSort(keys); // on every core: reading is over, sending not begun
    long mask = (1L << rankBits) - 1;
    order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = rowOfRank[(int) (keys[i] & mask)];
    }
  }

  /**
   * The rows in (partition, offset, line) order: a counting sort by partition (partitions are small
   * numbers), which keeps the file's order within each; a partition whose offsets are not in order
   * in the file (an export that put a partition's few late records in their time's place) is then
   * sorted on its own by packed (offset, position) keys. Any other file takes a comparator sort.
   */
  private int[] rowsByPartitionOffsetLine() {
    int n = size;
    int maxPartition = 0;
    int minPartition = 0;
    for (int r = 0; r < n; r++) {
      maxPartition = Math.max(maxPartition, partition[r]);
      minPartition = Math.min(minPartition, partition[r]);
    }
    if (minPartition >= 0 && maxPartition < 1 << 20) {
      int[] next = new int[maxPartition + 2];
      for (int r = 0; r < n; r++) {
        next[partition[r] + 1]++;
      }
      for (int p = 1; p < next.length; p++) {
        next[p] += next[p - 1];
      }
      int[] starts = next.clone();
      int[] rowOfRank = new int[n];
      for (int r = 0; r < n; r++) {
        rowOfRank[next[partition[r]]++] = r;
      }
      boolean sorted = true;
      for (int p = 0; p <= maxPartition && sorted; p++) {
        sorted = byOffset(rowOfRank, starts[p], starts[p + 1]);
      }
      if (sorted) {
        return rowOfRank;
      }
    }
    return sortedRows(
        (a, b) -> {
          if (partition[a] != partition[b]) {
            return Integer.compare(partition[a], partition[b]);
          }
          if (offset[a] != offset[b]) {
            return Long.compare(offset[a], offset[b]);
          }
          return Long.compare(line[a], line[b]);
        });
  }

  /**
   * Puts {@code rows[from, to)} (one partition's, in file order) in offset order, equal offsets in
   * file order; false when their offsets span too much for packed keys.
   */
  private boolean byOffset(int[] rows, int from, int to) {
    boolean inOrder = true;
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (int i = from; i < to; i++) {
      long o = offset[rows[i]];
      inOrder &= i == from || o >= offset[rows[i - 1]];
      min = Math.min(min, o);
      max = Math.max(max, o);
    }
    if (inOrder) {
      return true;
    }
    int count = to - from;
    int positionBits = 64 - Long.numberOfLeadingZeros(count);
    long range = max - min;
    if (range < 0 || 64 - Long.numberOfLeadingZeros(range) + positionBits > 63) {
      return false;
    }
    long[] keys = new long[count];
    for (int i = 0; i < count; i++) {
      keys[i] = ((offset[rows[from + i]] - min) << positionBits) | i;
    }
    Arrays.sort(keys);
    int[] slice = Arrays.copyOfRange(rows, from, to);
    long mask = (1L << positionBits) - 1;
    for (int i = 0; i < count; i++) {
      rows[from + i] = slice[(int) (keys[i] & mask)];
    }
    return true;
  }

  private int[] sortWithComparator(int[] rowOfRank) {
    int n = size;
    int[] rankOfRow = new int[n];
    for (int rank = 0; rank < n; rank++) {
      rankOfRow[rowOfRank[rank]] = rank;
    }
    return sortedRows(
        (a, b) -> {
          if (ts[a] != ts[b]) {
            return Long.compare(ts[a], ts[b]);
          }
          int fa = flags[a] & ArchivedRecord.FINAL;
          int fb = flags[b] & ArchivedRecord.FINAL;
          if (fa != fb) {
            return Integer.compare(fa, fb);
          }
          return Integer.compare(rankOfRow[a], rankOfRow[b]);
        });
  }

  /** Every row number, sorted by {@code order}. */
  private int[] sortedRows(Comparator<Integer> order) {
    Integer[] rows = new Integer[size];
    for (int r = 0; r < size; r++) {
      rows[r] = r;
    }
    Arrays.sort(rows, order);
    int[] sorted = new int[size];
    for (int i = 0; i < size; i++) {
      sorted[i] = rows[i];
    }
    return sorted;
  }
}

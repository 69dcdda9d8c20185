package io.tpotstream.archive;

import io.tpotstream.common.progress.Progress;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.AbstractList;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.RandomAccess;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The one reader of archives ({@code tpot export}'s JSONL, plain or {@code .gz}, {@code .zst},
 * {@code .lz4}; a file of bare token events, one per line, is read as partition 0 with the line
 * number as offset). It returns the records in the replay order ({@link
 * ArchivedRecord#REPLAY_ORDER}), which {@code replay} publishes and {@code stats} computes over. A
 * line that cannot be read is reported with its number and skipped; nothing else is lost.
 *
 * <p>One thread decompresses the file into large blocks of whole lines while others cut the blocks
 * into lines and read each line's envelope by position ({@link ArchiveLines}); the records are
 * columns of primitives pointing into the blocks ({@link ArchiveTable}), so the file is held in
 * memory once, uncompressed, and sorted by one sort of 64-bit keys.
 */
public final class ArchiveReader {
  /**
   * Uncompressed bytes per block. Blocks in flight (decompressed, being parsed, handed over) live
   * across young collections; small blocks fit the survivor spaces instead of filling the old
   * generation (BENCHMARKS.md, B5, "Smaller blocks").
   */
  static final int BLOCK = 256 << 10;

  /** Told about each line that could not be read. */
  public interface CorruptLineListener {
    void corrupt(long lineNumber, String reason);
  }

  /**
   * What to read and whom to tell.
   *
   * @param fromMs only records with a timestamp at or after this (epoch ms), or null
   * @param toMs only records with a timestamp before this, or null
   * @param corrupt told about each unreadable line
   * @param progress counts the records read (phase "reading", percent by the file's bytes); null
   *     for none
   */
  public record Options(Long fromMs, Long toMs, CorruptLineListener corrupt, Progress progress) {
    /** Every record, no progress. */
    public static Options all(CorruptLineListener corrupt) {
      return new Options(null, null, corrupt, null);
    }

    public Options withProgress(Progress p) {
      return new Options(fromMs, toMs, corrupt, p);
    }

    public Options withRange(Long from, Long to) {
      return new Options(from, to, corrupt, progress);
    }

    /** Whether a time range leaves records out (the file's counts are then not the read's). */
    public boolean ranged() {
      return fromMs != null || toMs != null;
    }

    boolean inRange(long timestamp) {
      return (fromMs == null || timestamp >= fromMs) && (toMs == null || timestamp < toMs);
    }
  }

  /**
   * What was read.
   *
   * @param records the readable records in the range, in replay order
   * @param lines lines in the file
   * @param corrupt lines that could not be read (each reported)
   * @param outsideRange readable records left out by the time range
   * @param uncompressedBytes the file's size uncompressed
   */
  public record Archive(
      List<ArchivedRecord> records,
      long lines,
      long corrupt,
      long outsideRange,
      long uncompressedBytes) {}

  private ArchiveReader() {}

  /** Threads that cut blocks into records, beside the one that decompresses. */
  static int parsers() {
    return Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
  }

  /** Every readable record of {@code file}, in replay order (see {@link Options}). */
  public static Archive read(Path file, Options options) throws IOException {
    Progress progress = options.progress();
    if (progress != null) {
      progress.phase("reading " + file.getFileName(), "records", -1);
    }
    // the manifest's count and the size are the whole file's: with a time range, the table grows
    long expected = options.ranged() ? -1 : expectedRecords(file);
    long room = expected >= 0 ? expected : options.ranged() ? 1 << 16 : Files.size(file) / 64;
    // a row takes 60 bytes of the table's arrays: never make room for more than the heap could hold
    room = Math.min(room, Runtime.getRuntime().maxMemory() / 64);
    ArchiveTable table;
    try {
      table = new ArchiveTable((int) Math.min(Integer.MAX_VALUE - 8, room));
    } catch (OutOfMemoryError e) {
      throw tooLarge(-1);
    }
    long[] totals;
    try {
      totals = readParts(file, options, part -> table.append(part.table));
    } catch (OutOfMemoryError e) {
      throw tooLarge(table.size);
    }
    if (progress != null) {
      progress.phase("sorting " + file.getFileName(), "records", table.size);
    }
    table.sort();
    if (progress != null) {
      progress.set(table.size);
    }
    return new Archive(new Rows(table, table.order), totals[0], totals[1], totals[2], totals[3]);
  }

  /**
   * The records in {@code file} when its manifest was written for it (same size), else -1. The
   * table then takes exactly that room: a guess from a plain file's size made room for four to six
   * times too many rows, 750 MB of arrays to clear for a two-million-event export.
   */
  static long expectedRecords(Path file) throws IOException {
    long size = Files.size(file);
    // not trusted: a count above the file's bytes (every line takes more than a byte)
    return ArchiveManifest.read(file)
        .filter(m -> m.bytes() == size && m.records() >= 0 && m.records() <= size)
        .map(m -> m.records())
        .orElse(-1L);
  }

  /** Takes the records of a file read as a stream, a stretch (a block of the file) at a time. */
  @FunctionalInterface
  public interface StretchSink {
    /**
     * @param records the readable records of the stretch in the range, in file order (which was
     *     checked to be the replay order)
     */
    void accept(List<ArchivedRecord> records) throws IOException;
  }

  /**
   * What a stream read.
   *
   * @param records the readable records in the range, handed to the sink
   * @param lines lines in the file
   * @param corrupt lines that could not be read (each reported)
   * @param outsideRange readable records left out by the time range
   */
  public record Streamed(long records, long lines, long corrupt, long outsideRange) {}

  /** A record of a streamed file that comes before the one above it in the replay order. */
  public static final class NotInReplayOrder extends IOException {
    private final long line;

    NotInReplayOrder(Path file, long line) {
      super(file + " line " + line + " comes before the line above it in the replay order");
      this.line = line;
    }

    /** The line of the file that is out of order. */
    public long line() {
      return line;
    }
  }

  /**
   * Reads {@code file}, whose lines are in the replay order (an export's, as its {@link
   * ArchiveManifest} says), as a stream: each stretch's records go to {@code sink} as soon as they
   * are read, in file order, in the reading thread, while the next stretches are decompressed and
   * cut into records; only those few stretches are held. Every record is checked to come after the
   * one before it in the replay order; one that does not stops the reading ({@link
   * NotInReplayOrder}) once every record above it was handed over. Progress (when the options have
   * one) counts the records read and the file's bytes, in the caller's phase.
   */
  public static Streamed stream(Path file, Options options, StretchSink sink) throws IOException {
    ArchivedRecord[] last = {null};
    long[] records = {0};
    long[] totals;
    try {
      totals =
          readParts(
              file,
              options,
              part -> {
                List<ArchivedRecord> stretch = new Rows(part.table, null);
                ArchivedRecord before = last[0];
                for (int i = 0; i < stretch.size(); i++) {
                  ArchivedRecord r = stretch.get(i);
                  if (before != null && ArchivedRecord.REPLAY_ORDER.compare(before, r) > 0) {
                    if (i > 0) {
                      sink.accept(stretch.subList(0, i)); // the records above it are in order
                    }
                    throw new NotInReplayOrder(file, r.line());
                  }
                  before = r;
                }
                last[0] = before;
                records[0] += stretch.size();
                if (!stretch.isEmpty()) {
                  sink.accept(stretch);
                }
              });
    } catch (OutOfMemoryError e) {
      throw new IllegalStateException(
          "out of memory after "
              + records[0]
              + " records of "
              + file
              + ", read a few blocks at a time (a line longer than the heap?): give the JVM more"
              + " heap (TPOT_JAVA_OPTS=-Xmx16g)");
    }
    return new Streamed(records[0], totals[0], totals[1], totals[2]);
  }

  /** Told about each part of the file in file order, its lines numbered from the file's start. */
  private interface PartHandler {
    void accept(Part part) throws IOException;
  }

  /**
   * Decompresses {@code file} in one thread and parses its blocks on {@link #parsers()} others,
   * handing each part to {@code handler} in file order; returns lines, corrupt lines, records
   * outside the range and uncompressed bytes.
   */
  private static long[] readParts(Path file, Options options, PartHandler handler)
      throws IOException {
    long fileBytes = Files.size(file);
    Progress progress = options.progress();
    int workers = parsers();
    ExecutorService pool =
        Executors.newFixedThreadPool(
            workers,
            r -> {
              Thread t = new Thread(r, "archive-parse");
              t.setDaemon(true);
              return t;
            });
    Decompressor decompressor = new Decompressor(file);
    decompressor.start();
    ArrayDeque<Future<Part>> parsing = new ArrayDeque<>();
    long[] totals = new long[4]; // lines, corrupt, outside range, uncompressed bytes
    try {
      for (Decompressor.Block block = decompressor.next();
          block != Decompressor.Block.END;
          block = decompressor.next()) {
        Decompressor.Block b = block;
        parsing.add(pool.submit(() -> Part.parse(b, options)));
        while (parsing.size() > workers * 2 || (!parsing.isEmpty() && parsing.peek().isDone())) {
          collect(parsing.poll(), handler, totals, options, progress, decompressor, fileBytes);
        }
      }
      while (!parsing.isEmpty()) {
        collect(parsing.poll(), handler, totals, options, progress, decompressor, fileBytes);
      }
    } catch (OutOfMemoryError e) {
      parsing.clear(); // the caller says how far it got
      throw e;
    } finally {
      decompressor.stop();
      pool.shutdownNow();
    }
    return totals;
  }

  private static void collect(
      Future<Part> future,
      PartHandler handler,
      long[] totals,
      Options options,
      Progress progress,
      Decompressor decompressor,
      long fileBytes)
      throws IOException {
    Part part;
    try {
      part = future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while reading");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof OutOfMemoryError oom) {
        throw oom;
      }
      throw new IllegalStateException("cannot read the archive: " + e.getCause(), e.getCause());
    }
    long firstLine = totals[0] + 1;
    for (int i = 0; i < part.corruptLines.size(); i++) {
      options.corrupt().corrupt(part.corruptLines.get(i) + firstLine - 1, part.reasons.get(i));
    }
    part.table.renumber(firstLine);
    handler.accept(part);
    totals[0] += part.lines;
    totals[1] += part.corruptLines.size();
    totals[2] += part.outside;
    totals[3] += part.bytes;
    if (progress != null) {
      progress.add(part.table.size);
      progress.fraction(decompressor.compressedBytesRead(), fileBytes);
    }
  }

  /** The archive does not fit in memory: what to do about it. */
  static IllegalStateException tooLarge(long records) {
    return new IllegalStateException(
        "the archive does not fit in memory uncompressed"
            + (records >= 0 ? " (" + records + " records read)" : "")
            + ": give the JVM more heap (TPOT_JAVA_OPTS=-Xmx16g) or replay it in time ranges"
            + " (--from/--to, one after another)");
  }

  /** Reads every record (reporting unreadable lines to {@code corrupt}) in replay order. */
  public static List<ArchivedRecord> readInReplayOrder(Path file, CorruptLineListener corrupt)
      throws IOException {
    return read(file, Options.all(corrupt)).records();
  }

  /** The records of one block, lines numbered from 1 within it. */
  private static final class Part {
    final ArchiveTable table;
    final List<Long> corruptLines = new ArrayList<>();
    final List<String> reasons = new ArrayList<>();
    long lines;
    long outside;
    long bytes;

    private Part(int capacity) {
      table = new ArchiveTable(capacity);
    }

    static Part parse(Decompressor.Block block, Options options) {
      byte[] buf = block.bytes();
      int end = block.length();
      Part part = new Part(end / 256);
      part.bytes = end;
      ArchiveTable table = part.table;
      int blockIndex = table.addBlock(buf);
      ArchiveLines lines = new ArchiveLines();
      int start = 0;
      long line = 0;
      while (start < end) {
        int nl = indexOfNewline(buf, start, end);
        line++;
        if (!isBlank(buf, start, nl)) {
          int before = table.size;
          try {
            lines.parse(table, blockIndex, buf, start, nl, line);
            if (!options.inRange(table.timestamp[before])) {
              table.dropLast();
              part.outside++;
            }
          } catch (ArchiveLines.CorruptLine e) {
            part.corruptLines.add(line);
            part.reasons.add(e.getMessage());
          }
        }
        start = nl + 1;
      }
      part.lines = line;
      return part;
    }
  }

  /** Records of a table as a list of views: in file order, or in the order its sort gave. */
  private static final class Rows extends AbstractList<ArchivedRecord> implements RandomAccess {
    private final ArchiveTable table;
    private final int[] order; // null: file order

    Rows(ArchiveTable table, int[] order) {
      this.table = table;
      this.order = order;
    }

    @Override
    public ArchivedRecord get(int index) {
      return new ArchivedRecord(table, order == null ? index : order[index]);
    }

    @Override
    public int size() {
      return table.size;
    }
  }

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long NEWLINES = 0x0A0A0A0A0A0A0A0AL;
  private static final long LOW_BITS = 0x0101010101010101L;
  private static final long HIGH_BITS = 0x8080808080808080L;

  /**
   * The index of the first '\n' in {@code buf[from, end)}, or {@code end}: eight bytes at a time (a
   * line is a few hundred bytes, and this scan touches every byte of the file).
   */
  static int indexOfNewline(byte[] buf, int from, int end) {
    int i = from;
    for (; i + 8 <= end; i += 8) {
      long x = (long) LONGS.get(buf, i) ^ NEWLINES;
      long found = (x - LOW_BITS) & ~x & HIGH_BITS;
      if (found != 0) {
        return i + (Long.numberOfTrailingZeros(found) >>> 3);
      }
    }
    for (; i < end; i++) {
      if (buf[i] == '\n') {
        return i;
      }
    }
    return end;
  }

  private static boolean isBlank(byte[] buf, int start, int end) {
    for (int i = start; i < end; i++) {
      byte b = buf[i];
      if (b != ' ' && b != '\t' && b != '\r') {
        return false;
      }
    }
    return true;
  }
}

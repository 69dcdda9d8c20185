package io.tpotstream.common.archive;

import io.tpotstream.common.progress.Progress;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one reader of archives ({@code tpot export}'s JSONL, plain or {@code .gz}, {@code .zst},
 * {@code .lz4}; a file of bare token events, one per line, is read as partition 0 with the line
 * number as offset). It returns the records in the replay order ({@link
 * ArchivedRecord#REPLAY_ORDER}), which {@code replay} publishes and {@code stats} computes over. A
 * line that cannot be read is reported with its number and skipped; nothing else is lost.
 *
 * <p>One thread decompresses the file into large blocks while the caller's thread cuts them into
 * lines and reads each line's envelope by position ({@link ArchiveLines}); the records point into
 * the blocks, so the file is held in memory once, uncompressed, then sorted.
 */
public final class ArchiveReader {
  private static final int BLOCK = 4 << 20;

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

  /** Every readable record of {@code file}, in replay order (see {@link Options}). */
  public static Archive read(Path file, Options options) throws IOException {
    long fileBytes = Files.size(file);
    Progress progress = options.progress();
    if (progress != null) {
      progress.phase("reading " + file.getFileName(), "records", -1);
    }
    Decompressor decompressor = new Decompressor(file);
    decompressor.start();
    ArchiveLines lines = new ArchiveLines();
    List<ArchivedRecord> records = new ArrayList<>();
    long line = 0;
    long corrupt = 0;
    long outside = 0;
    long uncompressed = 0;
    try {
      for (Block block = decompressor.next(); block != Block.END; block = decompressor.next()) {
        byte[] buf = block.bytes();
        int end = block.length();
        uncompressed += end;
        int start = 0;
        long before = records.size();
        while (start < end) {
          int nl = indexOf(buf, start, end);
          line++;
          if (!isBlank(buf, start, nl)) {
            try {
              ArchivedRecord r = lines.parse(buf, start, nl, line);
              if (options.inRange(r.timestamp())) {
                records.add(r);
              } else {
                outside++;
              }
            } catch (ArchiveLines.CorruptLine e) {
              corrupt++;
              options.corrupt().corrupt(line, e.getMessage());
            }
          }
          start = nl + 1;
        }
        if (progress != null) {
          progress.add(records.size() - before);
          progress.fraction(decompressor.compressedBytesRead(), fileBytes);
        }
      }
    } finally {
      decompressor.stop();
    }
    ArchivedRecord[] sorted = records.toArray(new ArchivedRecord[0]);
    records = null;
    if (progress != null) {
      progress.phase("sorting " + file.getFileName(), "records", sorted.length);
    }
    Arrays.sort(sorted, ArchivedRecord.REPLAY_ORDER);
    if (progress != null) {
      progress.set(sorted.length);
    }
    return new Archive(Arrays.asList(sorted), line, corrupt, outside, uncompressed);
  }

  /** Reads every record (reporting unreadable lines to {@code corrupt}) in replay order. */
  public static List<ArchivedRecord> readInReplayOrder(Path file, CorruptLineListener corrupt)
      throws IOException {
    return read(file, Options.all(corrupt)).records();
  }

  private static int indexOf(byte[] buf, int from, int end) {
    for (int i = from; i < end; i++) {
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

  /** Uncompressed bytes ending at a line break (the last block: wherever the file ends). */
  private record Block(byte[] bytes, int length) {
    static final Block END = new Block(new byte[0], 0);
  }

  /** The thread that decompresses the file into blocks of whole lines. */
  private static final class Decompressor {
    private final Path file;
    private final BlockingQueue<Object> blocks = new ArrayBlockingQueue<>(4);
    private final AtomicLong compressedRead = new AtomicLong();
    private final Thread thread;

    Decompressor(Path file) {
      this.file = file;
      this.thread = new Thread(this::run, "archive-decompress");
      thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    long compressedBytesRead() {
      return compressedRead.get();
    }

    Block next() throws IOException {
      Object next;
      try {
        next = blocks.take();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while reading " + file);
      }
      if (next instanceof IOException e) {
        throw new IOException("cannot read " + file + ": " + e.getMessage(), e);
      }
      return (Block) next;
    }

    void stop() {
      thread.interrupt();
    }

    private void run() {
      try (InputStream in =
          ArchiveCompression.of(file).decompress(new Counting(Files.newInputStream(file)))) {
        byte[] carry = new byte[0];
        int carryLength = 0;
        int size = BLOCK;
        while (true) {
          byte[] block = new byte[Math.max(size, carryLength * 2)];
          System.arraycopy(carry, 0, block, 0, carryLength);
          int length = carryLength;
          int n = 0;
          while (length < block.length
              && (n = in.read(block, length, block.length - length)) >= 0) {
            length += n;
          }
          if (n < 0) {
            if (length > 0) {
              blocks.put(new Block(block, length));
            }
            blocks.put(Block.END);
            return;
          }
          int lastBreak = length - 1;
          while (lastBreak >= 0 && block[lastBreak] != '\n') {
            lastBreak--;
          }
          if (lastBreak < 0) {
            // one line longer than a block: keep it all and read on into a larger block
            carry = block;
            carryLength = length;
            continue;
          }
          blocks.put(new Block(block, lastBreak + 1));
          carryLength = length - lastBreak - 1;
          carry = Arrays.copyOfRange(block, lastBreak + 1, length);
        }
      } catch (IOException e) {
        try {
          blocks.put(e);
        } catch (InterruptedException stopped) {
          // the reader stopped
        }
      } catch (InterruptedException e) {
        // the reader stopped
      }
    }

    /** Counts the file's bytes as the decompression consumes them, for the percent done. */
    private final class Counting extends FilterInputStream {
      Counting(InputStream in) {
        super(in);
      }

      @Override
      public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
          compressedRead.incrementAndGet();
        }
        return b;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        int n = in.read(b, off, len);
        if (n > 0) {
          compressedRead.addAndGet(n);
        }
        return n;
      }
    }
  }
}

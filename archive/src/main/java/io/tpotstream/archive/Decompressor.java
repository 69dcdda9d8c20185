package io.tpotstream.archive;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The thread that decompresses an archive into blocks of whole lines for {@link ArchiveReader}: a
 * block of about {@link ArchiveReader#BLOCK} bytes ends at a line break, a line longer than that
 * grows its block; a failure to read is handed over in the blocks' place.
 */
final class Decompressor {
  /** Uncompressed bytes ending at a line break (the last block: wherever the file ends). */
  record Block(byte[] bytes, int length) {
    static final Block END = new Block(new byte[0], 0);
  }

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
    if (next instanceof OutOfMemoryError) {
      throw ArchiveReader.tooLarge(-1);
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
      int size = ArchiveReader.BLOCK;
      while (true) {
        byte[] block = new byte[Math.max(size, carryLength * 2)];
        System.arraycopy(carry, 0, block, 0, carryLength);
        int length = carryLength;
        int n = 0;
        while (length < block.length && (n = in.read(block, length, block.length - length)) >= 0) {
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
    } catch (OutOfMemoryError e) {
      try {
        blocks.put(e);
      } catch (InterruptedException stopped) {
        // the reader stopped
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

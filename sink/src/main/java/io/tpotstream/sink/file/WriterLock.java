package io.tpotstream.sink.file;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One writer per file: an exclusive lock on the sibling {@code <file>.lock}, held while the file is
 * open, whose content names the holder (pid and since when) for the error a second writer gets. The
 * lock file stays after the writer ends: it is the lock (an OS lock on it), not its existence, that
 * excludes, so a leftover never blocks anyone; removing it while held would let a second writer in.
 */
public final class WriterLock implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(WriterLock.class);

  private final Path lockPath;
  private final FileChannel channel;
  private final FileLock lock;

  private WriterLock(Path lockPath, FileChannel channel, FileLock lock) {
    this.lockPath = lockPath;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Locks {@code file} for this process, at once or not at all.
   *
   * @throws FileInUseException when another writer (another process, or another writer in this one)
   *     holds it
   */
  static WriterLock acquire(Path file) {
    Path lockPath = file.resolveSibling(file.getFileName() + ".lock");
    try {
      FileChannel channel =
          FileChannel.open(
              lockPath,
              StandardOpenOption.CREATE,
              StandardOpenOption.READ,
              StandardOpenOption.WRITE);
      FileLock lock = null;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        // another writer in this JVM holds it: the same answer as for another process
      }
      if (lock == null) {
        String holder = holder(channel);
        channel.close();
        throw new FileInUseException(
            file
                + " is being written by another writer ("
                + holder
                + "; lock "
                + lockPath
                + "): stop that one, or give this one another file");
      }
      channel.truncate(0);
      channel.write(
          StandardCharsets.UTF_8.encode(
              "pid " + ProcessHandle.current().pid() + ", since " + Instant.now() + "\n"),
          0);
      channel.force(false);
      return new WriterLock(lockPath, channel, lock);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot lock " + lockPath + ": " + e.getMessage(), e);
    }
  }

  /**
   * Fails at once when another writer holds {@code file} (a command's early check, before it starts
   * what takes long; the writer itself still takes the lock when it opens the file).
   *
   * @throws FileInUseException when another writer holds it
   */
  public static void checkFree(Path file) {
    Path parent = file.toAbsolutePath().getParent();
    if (parent == null || Files.isDirectory(parent)) {
      acquire(file).close();
    }
  }

  private static String holder(FileChannel channel) throws IOException {
    ByteBuffer bytes = ByteBuffer.allocate(256);
    channel.read(bytes, 0);
    String text = new String(bytes.array(), 0, bytes.position(), StandardCharsets.UTF_8).strip();
    return text.isEmpty() ? "holder unknown" : text;
  }

  @Override
  public void close() {
    try {
      lock.release();
      channel.close();
    } catch (IOException e) {
      LOG.warn("cannot release {}: {}", lockPath, e.getMessage());
    }
  }
}

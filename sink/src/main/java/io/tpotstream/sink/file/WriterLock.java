package io.tpotstream.sink.file;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One writer per file: an exclusive lock on {@code <file>.lock} beside the file's real path (links
 * resolved, so that a symlink or another spelling of the path meets the same lock), held while the
 * file is open, whose content names the holder (pid, host and since when) for the error a second
 * writer gets. It is the lock (an OS lock on it), not the file's existence, that excludes, so the
 * file a crashed writer leaves never blocks anyone. A writer that closes removes the file while it
 * still holds the lock, and a writer that locks checks that the file it locked is still the one at
 * the path (a writer that opened the file just before it was removed would hold a lock no one else
 * meets): if not, it tries again on the path as it is now.
 */
public final class WriterLock implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(WriterLock.class);

  /** Links followed from a path before it is taken as a loop. */
  private static final int MAX_LINKS = 40;

  /** Locks tried on a lock file that other writers keep removing, before giving up. */
  private static final int MAX_TRIES = 5;

  private final Path lockPath;
  private final FileChannel channel;
  private final FileLock lock;
  private final Object identity;

  private WriterLock(Path lockPath, FileChannel channel, FileLock lock, Object identity) {
    this.lockPath = lockPath;
    this.channel = channel;
    this.lock = lock;
    this.identity = identity;
  }

  /**
   * Locks {@code file} for this process, at once or not at all.
   *
   * @throws FileInUseException when another writer (another process, or another writer in this one)
   *     holds it
   */
  static WriterLock acquire(Path file) {
    Path real;
    try {
      real = realPath(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot resolve " + file + ": " + e.getMessage(), e);
    }
    Path lockPath = real.resolveSibling(real.getFileName() + ".lock");
    for (int tries = 1; ; tries++) {
      WriterLock held = tryAcquire(file, real, lockPath);
      if (held != null) {
        return held;
      }
      if (tries == MAX_TRIES) {
        throw new IllegalStateException(
            "cannot lock "
                + lockPath
                + ": other writers removed it "
                + MAX_TRIES
                + " times while this one locked it");
      }
    }
  }

  /**
   * Locks {@code lockPath}, or returns null when the file this writer locked may no longer be the
   * one at the path (removed by a writer that ended, or replaced, after this one opened it). The
   * file is told by its identity (device and inode, a stat that opens nothing): a second descriptor
   * of a locked file, once closed, would release every lock this process holds on it (POSIX).
   */
  private static WriterLock tryAcquire(Path file, Path real, Path lockPath) {
    try {
      try {
        Files.createFile(lockPath);
      } catch (FileAlreadyExistsException e) {
        // another writer's, or one a killed writer left: its lock decides
      }
      Object before = identity(lockPath);
      FileChannel channel;
      try {
        channel = FileChannel.open(lockPath, StandardOpenOption.READ, StandardOpenOption.WRITE);
      } catch (NoSuchFileException e) {
        return null; // its writer ended between the two: try again
      }
      FileLock lock = null;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        // another writer in this JVM holds it: the same answer as for another process
      }
      if (lock == null) {
        String holder = holder(channel);
        channel.close();
        boolean alias = !real.equals(file.toAbsolutePath().normalize());
        throw new FileInUseException(
            file
                + (alias ? " (that is " + real + ")" : "")
                + " is being written by another writer ("
                + holder
                + "; lock "
                + lockPath
                + "): stop that one, or give this one another file");
      }
      if (before == GONE || (before != null && !before.equals(identity(lockPath)))) {
        lock.release();
        channel.close();
        return null;
      }
      channel.truncate(0);
      channel.write(
          StandardCharsets.UTF_8.encode(
              "pid "
                  + ProcessHandle.current().pid()
                  + " on host "
                  + Host.NAME
                  + ", since "
                  + Instant.now()
                  + "\n"),
          0);
      channel.force(false);
      return new WriterLock(lockPath, channel, lock, before);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot lock " + lockPath + ": " + e.getMessage(), e);
    }
  }

  /** What {@link #identity} says of a path with no file. */
  private static final Object GONE = new Object();

  /**
   * The file at {@code path}'s identity (device and inode), {@link #GONE} when there is none, null
   * where the platform tells none (then a lock file is never removed: it is harmless).
   */
  private static Object identity(Path path) throws IOException {
    try {
      return Files.readAttributes(path, BasicFileAttributes.class).fileKey();
    } catch (NoSuchFileException e) {
      return GONE;
    }
  }

  /**
   * The path {@code file} stands for, absolute, with every symbolic link resolved (its own, also
   * one pointing to a file not created yet, and its directories'): two spellings of one file give
   * one path.
   */
  static Path realPath(Path file) throws IOException {
    Path path = file.toAbsolutePath().normalize();
    for (int links = 0; Files.isSymbolicLink(path); links++) {
      if (links == MAX_LINKS) {
        throw new IOException("too many symbolic links from " + file);
      }
      // a relative link is read from the link's directory as it really is
      path = realParent(path).resolve(Files.readSymbolicLink(path)).normalize();
    }
    return Files.exists(path) ? path.toRealPath() : realParent(path).resolve(path.getFileName());
  }

  private static Path realParent(Path path) throws IOException {
    Path parent = path.getParent();
    return parent != null && Files.exists(parent) ? parent.toRealPath() : parent;
  }

  /** This machine's name, looked up once (a lock on shared storage is held by a pid of a host). */
  private static final class Host {
    static final String NAME = name();

    private static String name() {
      try {
        return InetAddress.getLocalHost().getHostName();
      } catch (IOException | RuntimeException e) {
        String env = System.getenv("HOSTNAME");
        return env != null && !env.isBlank() ? env : "unknown";
      }
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

  /**
   * Removes the lock file (while still holding its lock: no one else can be in it), then unlocks.
   */
  @Override
  public void close() {
    try {
      if (identity != null && identity.equals(identity(lockPath))) {
        Files.delete(lockPath);
      }
    } catch (IOException e) {
      LOG.warn("cannot remove {}: {}", lockPath, e.getMessage());
    }
    try {
      lock.release();
      channel.close();
    } catch (IOException e) {
      LOG.warn("cannot release {}: {}", lockPath, e.getMessage());
    }
  }
}

package io.tpotstream.common;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Files written whole or not at all, so that a power loss or kill -9 leaves either the previous
 * content or the new one behind a name, never an empty or torn file: the export's manifest, the
 * sink's positions.
 */
public final class DurableFiles {
  private DurableFiles() {}

  /**
   * Writes {@code bytes} to {@code target}: under a temporary name beside it ({@code
   * NAME.partial}), fsynced, renamed into place, the directory fsynced.
   */
  public static void writeWhole(Path target, byte[] bytes) throws IOException {
    Path partial = target.resolveSibling(target.getFileName() + ".partial");
    try (FileChannel channel =
        FileChannel.open(
            partial,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      channel.force(true);
    }
    Files.move(
        partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    syncDirectory(target);
  }

  /**
   * Forces the directory of {@code file} to the disk, so that a rename into it survives a power
   * loss (where the platform cannot open a directory, as Windows, the rename is left to the OS).
   */
  public static void syncDirectory(Path file) {
    Path dir = file.toAbsolutePath().getParent();
    if (dir == null) {
      return;
    }
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException e) {
      // not possible on this platform: the rename is as durable as the OS makes it
    }
  }
}

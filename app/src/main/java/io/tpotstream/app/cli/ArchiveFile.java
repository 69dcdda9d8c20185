package io.tpotstream.app.cli;

import io.tpotstream.archive.ArchivedRecord;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventFormatException;
import io.tpotstream.common.progress.Progress;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * The archive file of {@code export}, {@code replay} and {@code stats}: {@code --file} or a
 * positional path, the same in every command.
 */
final class ArchiveFile {
  private ArchiveFile() {}

  /**
   * The one file named by {@code --file} or the positional argument.
   *
   * @throws IllegalArgumentException when neither or two different files are given
   */
  static Path of(String command, Path option, Path positional) {
    if (option != null && positional != null && !option.equals(positional)) {
      throw new IllegalArgumentException(
          "two files given ("
              + option
              + " and "
              + positional
              + "): name the archive once, with --file or as the argument");
    }
    Path file = option != null ? option : positional;
    if (file == null) {
      throw new IllegalArgumentException(
          "no archive file: tpot " + command + " --file FILE (or tpot " + command + " FILE)");
    }
    return file;
  }

  /**
   * The token events of {@code records} in their order, for the per-request records, decoded as
   * they are iterated (one pass, none held), each record counted on {@code progress}: heartbeats
   * and records that are not token events left out (the statistics pass already reported those).
   */
  static Iterable<TokenEvent> tokenEvents(List<ArchivedRecord> records, Progress progress) {
    return () ->
        new Iterator<>() {
          private int i;
          private TokenEvent next = advance();

          private TokenEvent advance() {
            while (i < records.size()) {
              TokenEvent e = tokenEvent(records.get(i++));
              if ((i & 4095) == 0 || i == records.size()) {
                progress.set(i);
              }
              if (e != null) {
                return e;
              }
            }
            return null;
          }

          @Override
          public boolean hasNext() {
            return next != null;
          }

          @Override
          public TokenEvent next() {
            if (next == null) {
              throw new NoSuchElementException();
            }
            TokenEvent e = next;
            next = advance();
            return e;
          }
        };
  }

  /** The token event of a record, or null for a heartbeat or a record that is not one. */
  private static TokenEvent tokenEvent(ArchivedRecord r) {
    if (r.isHeartbeat()) {
      return null;
    }
    try {
      return r.event();
    } catch (TokenEventFormatException e) {
      return null; // reported with its line by the statistics pass
    }
  }
}

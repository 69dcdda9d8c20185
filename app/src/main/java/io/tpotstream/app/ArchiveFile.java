package io.tpotstream.app;

import io.tpotstream.common.archive.ArchivedRecord;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventFormatException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

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
   * The token events of {@code records} in their order, for the per-request records: heartbeats and
   * records that are not token events left out (the statistics pass already reported those).
   */
  static List<TokenEvent> tokenEvents(List<ArchivedRecord> records) {
    List<TokenEvent> events = new ArrayList<>(records.size());
    for (ArchivedRecord r : records) {
      if (r.isHeartbeat()) {
        continue;
      }
      try {
        events.add(r.event());
      } catch (TokenEventFormatException e) {
        // reported with its line by the statistics pass
      }
    }
    return events;
  }
}

package io.tpotstream.app;

import java.nio.file.Path;

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
}

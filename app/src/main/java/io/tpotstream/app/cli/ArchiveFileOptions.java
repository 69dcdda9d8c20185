package io.tpotstream.app.cli;

import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The archive of {@code export}, {@code replay}, {@code stats} and {@code trace}: {@code -f}/{@code
 * --file} or a positional path, spelled and described the same way in every command ({@link
 * ArchiveFile}).
 */
final class ArchiveFileOptions {
  @Option(
      names = {"-f", "--file"},
      paramLabel = "FILE",
      description =
          "The archive: JSONL records as tpot export writes them (stats also reads plain token"
              + " events), compressed as the name says: .gz, .zst, .lz4, else plain. Or give it as"
              + " the argument.")
  Path option;

  @Parameters(arity = "0..1", paramLabel = "FILE", description = "The archive, as --file.")
  Path positional;

  /** The one file named by {@code --file} or the argument; fails when neither or two differ. */
  Path file(String command) {
    return ArchiveFile.of(command, option, positional);
  }

  /** The file when one is given ({@code trace} reads a topic otherwise); fails when two differ. */
  Optional<Path> given(String command) {
    return option == null && positional == null
        ? Optional.empty()
        : Optional.of(ArchiveFile.of(command, option, positional));
  }
}

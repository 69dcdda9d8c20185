package io.tpotstream.app.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The archive of {@code export}, {@code replay} and {@code stats}: {@code -f}/{@code --file} or a
 * positional path, spelled and described the same way in every command ({@link ArchiveFile}).
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
}

package io.tpotstream.app.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --requests-out}: the per-request records of {@code produce}, {@code run}, {@code demo} and
 * {@code stats}.
 */
final class RequestsOutOptions {
  @Option(
      names = "--requests-out",
      paramLabel = "FILE",
      description =
          "Write one JSON line per finished request (TTFT, E2E, its own gaps...): live in"
              + " produce, run and demo, from the file's events in stats (the same records).")
  Path file;
}

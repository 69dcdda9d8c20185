package io.tpotstream.app.cli;

import picocli.CommandLine.Option;

/**
 * {@code --allow-incomplete}: {@code replay} and {@code stats} of an export that did not finish.
 */
final class AllowIncompleteOptions {
  @Option(
      names = "--allow-incomplete",
      description =
          "Use an archive whose manifest marks it incomplete (an export stopped before its end, or"
              + " records deleted by retention before it read them), with a warning.")
  boolean allow;
}

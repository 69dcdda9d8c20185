package io.tpotstream.app.cli;

import picocli.CommandLine.Option;

/**
 * {@code --allow-incomplete}: {@code replay}, {@code stats} and {@code compare} of an export that
 * did not finish, or whose completeness cannot be told.
 */
final class AllowIncompleteOptions {
  @Option(
      names = "--allow-incomplete",
      description =
          "Use an archive whose manifest marks it incomplete (an export stopped before its end, or"
              + " records deleted by retention before it read them), or whose completeness cannot"
              + " be told (its manifest empty, unreadable or missing), with a warning.")
  boolean allow;
}

package io.tpotstream.app.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

/**
 * Old spellings of flags, kept so that scripts keep working ({@code aggregate --input} for {@code
 * --topic}, {@code export --out} for {@code --file}, {@code sink --input} for {@code
 * --summaries-topic}): an old spelling and its new one given together are refused, rather than the
 * later one silently winning.
 */
final class OldSpelling {
  private OldSpelling() {}

  /**
   * @throws IllegalArgumentException when the command line has both {@code current} and {@code old}
   */
  static void notBoth(CommandSpec command, String current, String old) {
    ParseResult parsed = command.commandLine().getParseResult();
    if (parsed != null && parsed.hasMatchedOption(current) && parsed.hasMatchedOption(old)) {
      throw new IllegalArgumentException(
          current
              + " and "
              + old
              + " both given: "
              + old
              + " is the old spelling of "
              + current
              + "; give it once");
    }
  }
}

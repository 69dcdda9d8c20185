package io.tpotstream.app.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/** {@code --label}: a label on every event {@code produce} or {@code proxy} publishes. */
final class LabelOptions {
  @Option(
      names = "--label",
      paramLabel = "NAME=VALUE",
      description = "Add a label to every event (repeatable), e.g. --label target=gateway-a.")
  Map<String, String> labels = new LinkedHashMap<>();
}

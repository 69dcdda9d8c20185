package io.tpotstream.app.cli;

import io.tpotstream.common.Topics;
import picocli.CommandLine.Option;

/**
 * {@code --summaries-topic}: the window-summaries topic, the same flag in {@code aggregate}, {@code
 * sink} and {@code report}. The default is a field initializer so that the old spellings the
 * commands keep ({@code --output}, {@code --input}) can set it.
 */
final class SummariesTopicOptions {
  @Option(
      names = "--summaries-topic",
      paramLabel = "TOPIC",
      description =
          "Window-summaries topic: aggregate writes it (created when missing), sink and report"
              + " --from-topic read it (default: ${DEFAULT-VALUE}).")
  String topic = Topics.WINDOW_SUMMARIES;
}

package io.tpotstream.app.cli;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The summaries topic as {@code sink} and {@code report} read it: {@code --summaries-topic}, and
 * {@code --input}, its old spelling in these two commands ({@code aggregate --input} is the
 * token-events topic).
 */
final class SummariesInputOptions {
  @Mixin SummariesTopicOptions summariesTopic = new SummariesTopicOptions();

  @Spec(Spec.Target.MIXEE)
  CommandSpec command;

  @Option(
      names = "--input",
      paramLabel = "TOPIC",
      description = "Old spelling of --summaries-topic.")
  void input(String topic) {
    summariesTopic.topic = topic;
  }

  String topic() {
    OldSpelling.notBoth(command, "--summaries-topic", "--input");
    return summariesTopic.topic;
  }
}

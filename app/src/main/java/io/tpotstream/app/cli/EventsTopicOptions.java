package io.tpotstream.app.cli;

import io.tpotstream.common.Topics;
import picocli.CommandLine.Option;

/**
 * {@code --topic}: the token-events topic, the same flag in {@code produce}, {@code proxy}, {@code
 * aggregate}, {@code export} and {@code replay}. The default is a field initializer, not a picocli
 * {@code defaultValue}, so that an old spelling a command keeps ({@code aggregate --input}) can set
 * it.
 */
final class EventsTopicOptions {
  @Option(
      names = "--topic",
      paramLabel = "TOPIC",
      description = "Token-events topic (default: ${DEFAULT-VALUE}).")
  String topic = Topics.TOKEN_EVENTS;
}

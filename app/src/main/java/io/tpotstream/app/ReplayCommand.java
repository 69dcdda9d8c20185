package io.tpotstream.app;

import io.tpotstream.app.archive.Replayer;
import io.tpotstream.common.Topics;
import io.tpotstream.common.kafka.KafkaConnection;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code tpot replay}: publish archived token events again. */
@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    description = "Publish archived token events again to recompute statistics.")
final class ReplayCommand implements Callable<Integer> {
  @Mixin KafkaOptions kafka;

  @Option(names = "--file", required = true, description = "An archive written by tpot export.")
  Path file;

  @Option(
      names = "--topic",
      defaultValue = Topics.TOKEN_EVENTS,
      description = "Target topic (default: ${DEFAULT-VALUE}).")
  String topic;

  @Option(
      names = "--speed",
      defaultValue = "max",
      description =
          "max (as fast as possible), 1x (as recorded) or Nx (N times faster) (default: ${DEFAULT-VALUE}).")
  String speed;

  @Option(
      names = "--partitions",
      defaultValue = "3",
      description = "Partitions when the target topic is new (default: ${DEFAULT-VALUE}).")
  int partitions;

  @Override
  public Integer call() throws Exception {
    double factor = parseSpeed(speed);
    KafkaConnection connection = kafka.connect();
    Replayer replayer =
        new Replayer(
            new Replayer.Settings(connection.clientProperties(), file, topic, factor, partitions),
            System.err);
    KafkaOptions.explained(
        connection, KafkaAccess.writer(topic), "replay " + file + " into " + topic, replayer::run);
    return 0;
  }

  static double parseSpeed(String text) {
    if ("max".equalsIgnoreCase(text)) {
      return 0;
    }
    String number =
        text.endsWith("x") || text.endsWith("X") ? text.substring(0, text.length() - 1) : text;
    try {
      double factor = Double.parseDouble(number);
      if (factor > 0) {
        return factor;
      }
    } catch (NumberFormatException e) {
      // fall through to the message below
    }
    throw new IllegalArgumentException("--speed " + text + ": use max, 1x or Nx (e.g. 10x)");
  }
}

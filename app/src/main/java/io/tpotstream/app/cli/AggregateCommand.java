package io.tpotstream.app.cli;

import io.tpotstream.aggregator.Aggregator;
import io.tpotstream.aggregator.AggregatorConfig;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.app.CatchUp;
import io.tpotstream.app.KafkaAccess;
import io.tpotstream.common.Topics;
import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.kafka.KafkaNeeds;
import io.tpotstream.common.progress.Progress;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code tpot aggregate}: token events in, windowed TPOT summaries out, until Ctrl-C. */
@Command(
    name = "aggregate",
    mixinStandardHelpOptions = true,
    header = "Windowed TPOT, TTFT and error percentiles per series (Kafka Streams).",
    description = {
      "Turn token events into windowed TPOT, TTFT and error summaries per series (Kafka Streams,"
          + " exactly once).",
      "Windows close on the producers' watermarks: a window is emitted once every producer has"
          + " promised no more events for it (or has stopped or gone silent for"
          + " --producer-timeout).",
      "A new --application-id reads the input from its start, e.g. to recompute with another"
          + " --window or --group-by.",
      "While it reads a backlog it shows its progress on stderr (offsets read of the input's end"
          + " offsets at start, rate, percent, ETA) and says once when it has caught up; -q hides"
          + " it."
    })
final class AggregateCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin KafkaOptions kafkaOptions;

  @Mixin WindowOptions windowOptions;

  @Mixin SloOptions sloOptions;

  @Mixin EventsTopicOptions events;

  @Mixin ProgressOptions progress;

  @Option(names = "--input", paramLabel = "TOPIC", description = "Old spelling of --topic.")
  void input(String topic) {
    events.topic = topic;
  }

  @Mixin SummariesTopicOptions summariesTopic;

  @Option(
      names = "--output",
      paramLabel = "TOPIC",
      description = "Old spelling of --summaries-topic.")
  void output(String topic) {
    summariesTopic.topic = topic;
  }

  @Option(
      names = {"--dead-letter-topic", "--dead-letter"},
      defaultValue = Topics.DEAD_LETTER,
      description = "Where records that are not token events go (default: ${DEFAULT-VALUE}).")
  String deadLetter;

  @Option(
      names = "--application-id",
      defaultValue = AggregatorConfig.DEFAULT_APPLICATION_ID,
      description =
          "Kafka Streams application id; a new one starts from the earliest offset"
              + " (default: ${DEFAULT-VALUE}).")
  String applicationId;

  @Option(
      names = "--processing-guarantee",
      defaultValue = "exactly_once_v2",
      description =
          "exactly_once_v2 (default) or at_least_once (faster; after a crash a window may be"
              + " emitted twice and the exactness claims no longer hold).")
  String processingGuarantee;

  @Override
  public Integer call() throws Exception {
    OldSpelling.notBoth(spec, "--topic", "--input");
    OldSpelling.notBoth(spec, "--summaries-topic", "--output");
    // first: with --quiet it also turns the aggregator's INFO lines off
    Progress.Mode shown = progress.mode();
    KafkaConnection connection = kafkaOptions.connect();
    String input = events.topic;
    String output = summariesTopic.topic;
    StageSettings stage = windowOptions.settings().withSlo(sloOptions.spec());
    AggregatorConfig config =
        AggregatorConfig.defaults(connection.bootstrapServers())
            .withTopics(input, output, deadLetter)
            .withApplicationId(applicationId)
            .withStage(stage)
            .withProcessingGuarantee(processingGuarantee)
            .withKafkaProperties(connection.settings());
    KafkaNeeds needs = KafkaAccess.aggregator(config);
    String doing = "aggregate " + input + " into " + output;
    Aggregator aggregator =
        KafkaOptions.explained(connection, needs, doing, () -> Aggregator.start(config));
    AtomicReference<CatchUp> catchUp = new AtomicReference<>();
    // registered first: a Ctrl-C while the catching-up line reads its offsets still stops Streams
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  stop(catchUp.get());
                  aggregator.close();
                },
                "aggregate-stop"));
    if (shown != Progress.Mode.QUIET) {
      catchUp.set(
          CatchUp.start(
              connection,
              aggregator.config().inputTopic(),
              applicationId,
              progress.start("aggregate"),
              aggregator::isRunning));
    }
    try {
      KafkaOptions.explained(
          connection,
          needs,
          doing,
          () -> {
            try {
              return aggregator.stopped().join();
            } catch (CompletionException e) {
              throw e.getCause() instanceof RuntimeException r ? r : e;
            }
          });
    } finally {
      stop(catchUp.get()); // the line cleared before an error is printed
    }
    return 0;
  }

  private static void stop(CatchUp catchUp) {
    if (catchUp != null) {
      catchUp.close();
    }
  }
}

package io.tpotstream.app;

import io.tpotstream.aggregator.Aggregator;
import io.tpotstream.aggregator.AggregatorConfig;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.common.Topics;
import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.kafka.KafkaNeeds;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

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
          + " --window or --group-by."
    })
final class AggregateCommand implements Callable<Integer> {
  @Mixin KafkaOptions kafkaOptions;

  @Mixin SloOptions sloOptions;

  @Option(
      names = {"--topic", "--input"},
      defaultValue = Topics.TOKEN_EVENTS,
      description =
          "Token events topic, --topic as in produce, export and replay (default:"
              + " ${DEFAULT-VALUE}).")
  String input;

  @Option(
      names = {"--summaries-topic", "--output"},
      defaultValue = Topics.WINDOW_SUMMARIES,
      description =
          "Window summaries topic, created when missing, --summaries-topic as in sink and report"
              + " (default: ${DEFAULT-VALUE}).")
  String output;

  @Option(
      names = {"--dead-letter-topic", "--dead-letter"},
      defaultValue = Topics.DEAD_LETTER,
      description = "Where records that are not token events go (default: ${DEFAULT-VALUE}).")
  String deadLetter;

  @Option(
      names = "--window",
      defaultValue = "10s",
      converter = HumanDuration.class,
      description = "Window length, aligned to the epoch (default: ${DEFAULT-VALUE}).")
  Duration window;

  @Option(
      names = "--grace",
      defaultValue = "0s",
      converter = HumanDuration.class,
      description = "Extra wait after a window's end before it closes (default: ${DEFAULT-VALUE}).")
  Duration grace;

  @Option(
      names = "--group-by",
      split = ",",
      paramLabel = "LABEL",
      description = "Labels that split a model into series, e.g. concurrency,target.")
  List<String> groupBy = List.of();

  @Option(
      names = "--application-id",
      defaultValue = AggregatorConfig.DEFAULT_APPLICATION_ID,
      description =
          "Kafka Streams application id; a new one starts from the earliest offset"
              + " (default: ${DEFAULT-VALUE}).")
  String applicationId;

  @Option(
      names = "--request-timeout",
      defaultValue = "10m",
      converter = HumanDuration.class,
      description = "A request silent this long is counted abandoned (default: ${DEFAULT-VALUE}).")
  Duration requestTimeout;

  @Option(
      names = "--producer-timeout",
      defaultValue = "60s",
      converter = HumanDuration.class,
      description =
          "A producer whose watermark is this far behind the others no longer holds windows"
              + " open (default: ${DEFAULT-VALUE}).")
  Duration producerTimeout;

  @Option(
      names = "--client-lag-threshold",
      defaultValue = "1ms",
      converter = HumanDuration.class,
      description =
          "A window is clientSuspect when a producer's own event-loop lag or pause passed this"
              + " in it (default: ${DEFAULT-VALUE}; e.g. 500us, 5ms).")
  Duration clientLagThreshold;

  @Option(
      names = "--processing-guarantee",
      defaultValue = "exactly_once_v2",
      description =
          "exactly_once_v2 (default) or at_least_once (faster; after a crash a window may be"
              + " emitted twice and the exactness claims no longer hold).")
  String processingGuarantee;

  @Override
  public Integer call() throws Exception {
    KafkaConnection connection = kafkaOptions.connect();
    StageSettings stage =
        new StageSettings(
                window, grace, groupBy, requestTimeout, producerTimeout, clientLagThreshold)
            .withSlo(sloOptions.spec());
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
    Runtime.getRuntime().addShutdownHook(new Thread(aggregator::close, "aggregate-stop"));
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
    return 0;
  }
}

package io.tpotstream.app.cli;

import io.tpotstream.app.KafkaAccess;
import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.kafka.KafkaNeeds;
import io.tpotstream.sink.Sink;
import io.tpotstream.sink.SinkConfig;
import io.tpotstream.sink.file.WriterLock;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code tpot sink}: window summaries to CSV, JSONL, tpot.metrics, /metrics and charts. */
@Command(
    name = "sink",
    mixinStandardHelpOptions = true,
    header = "Write window summaries to CSV, tpot.metrics, Prometheus and charts.",
    description = {
      "Write window summaries to a CSV, a JSONL file, the tpot.metrics topic, a Prometheus"
          + " /metrics endpoint and (optionally) charts, each summary exactly once across crashes"
          + " and restarts. Runs until Ctrl-C.",
      "A new --group-id starts from the earliest summary; a known one resumes where it stopped."
    })
final class SinkCommand implements Callable<Integer> {
  @Mixin KafkaOptions kafkaOptions;

  @Mixin SummariesInputOptions summariesTopic;

  @Option(
      names = "--group-id",
      defaultValue = SinkConfig.DEFAULT_GROUP_ID,
      description =
          "Consumer group whose offsets record what is written (default: ${DEFAULT-VALUE}). Run"
              + " one sink per group.")
  String groupId;

  @Mixin SinkOutputs.Csv csv;

  @Mixin SinkOutputs.Jsonl jsonl;

  @Mixin SinkOutputs.MetricsTopic metricsTopic;

  @Mixin SinkOutputs.Prometheus prometheus;

  @Mixin SinkOutputs.Charts charts;

  /** -q: no INFO lines (Tpot turns them off for every command that takes it). */
  @Mixin ProgressOptions progress;

  @Override
  public Integer call() throws Exception {
    String input = summariesTopic.topic();
    // a sink already writing these files stops this one now, before Kafka is asked anything
    Path csvFile = csv.off ? null : csv.file.csv;
    Path jsonlFile = jsonl.path(csv.file.csv);
    for (Path file : new Path[] {csvFile, jsonlFile}) {
      if (file != null) {
        WriterLock.checkFree(file);
      }
    }
    KafkaConnection connection = kafkaOptions.connect();
    SinkConfig.Builder builder =
        SinkConfig.builder(connection.bootstrapServers())
            .inputTopic(input)
            .groupId(groupId)
            .kafkaProperties(connection.settings());
    csv.applyTo(builder);
    jsonl.applyTo(builder, csv.file.csv);
    metricsTopic.applyTo(builder);
    prometheus.applyTo(builder);
    charts.applyTo(builder);
    SinkConfig config = builder.build();
    KafkaNeeds needs = KafkaAccess.sink(config);
    String doing = "write the summaries of " + input;
    Sink sink = KafkaOptions.explained(connection, needs, doing, () -> Sink.start(config));
    Runtime.getRuntime().addShutdownHook(new Thread(sink::close, "sink-stop"));
    System.out.println(
        "tpot sink: reading "
            + input
            + " from "
            + connection.bootstrapServers()
            + sink.prometheusPort().stream()
                .mapToObj(port -> "; /metrics on port " + port)
                .findFirst()
                .orElse("")
            + ". Ctrl-C to stop.");
    System.out.flush();
    KafkaOptions.explained(
        connection,
        needs,
        doing,
        () -> {
          sink.await();
          return null;
        });
    return 0;
  }
}

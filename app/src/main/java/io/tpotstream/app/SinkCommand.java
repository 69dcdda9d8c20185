package io.tpotstream.app;

import io.tpotstream.common.Topics;
import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.kafka.KafkaNeeds;
import io.tpotstream.sink.Sink;
import io.tpotstream.sink.SinkConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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

  @Mixin SummariesCsvOptions csvOptions;

  @Option(names = "--no-csv", description = "Write no CSV.")
  boolean noCsv;

  @Option(
      names = "--labels",
      split = ",",
      paramLabel = "NAME",
      description =
          "The CSV's label_<name> columns, in order (default: the first summary's labels)."
              + " Absent labels are empty cells.")
  List<String> labels;

  @Option(
      names = "--jsonl",
      description =
          "The summaries with their histograms, one JSON per line, for `tpot report` (default:"
              + " beside the CSV, e.g. out/summaries.jsonl).")
  Path jsonl;

  @Option(names = "--no-jsonl", description = "Write no JSONL file.")
  boolean noJsonl;

  @Option(
      names = "--metrics-topic",
      defaultValue = Topics.METRICS,
      description = "Topic of flat records for monitoring stacks (default: ${DEFAULT-VALUE}).")
  String metricsTopic;

  @Option(names = "--no-metrics-topic", description = "Write no flat records to Kafka.")
  boolean noMetricsTopic;

  @Option(
      names = "--transactional-id",
      description = "Transactional id of the metrics producer (default: <group-id>-metrics).")
  String transactionalId;

  @Mixin PrometheusPortOptions prometheusPort = new PrometheusPortOptions(9404);

  @Option(
      names = "--prometheus-host",
      description = "Address /metrics binds to (default: every interface).")
  String prometheusHost;

  @Option(names = "--no-prometheus", description = "Serve no /metrics.")
  boolean noPrometheus;

  @Option(
      names = "--report-dir",
      description = "Refresh the charts and report.html here as windows arrive (default: off).")
  Path reportDir;

  @Option(names = "--log-scale", description = "Latency charts on a log scale.")
  boolean logScale;

  @Option(
      names = "--report-every",
      defaultValue = "10",
      paramLabel = "SECONDS",
      description = "Least time between two report refreshes (default: ${DEFAULT-VALUE} s).")
  int reportEverySeconds;

  @Override
  public Integer call() throws Exception {
    KafkaConnection connection = kafkaOptions.connect();
    String input = summariesTopic.topic();
    Path csv = csvOptions.csv;
    Path csvPath = noCsv ? null : csv;
    Path jsonlPath = noJsonl ? null : jsonl != null ? jsonl : SinkConfig.jsonlBeside(csv);
    SinkConfig config =
        SinkConfig.builder(connection.bootstrapServers())
            .inputTopic(input)
            .groupId(groupId)
            .csv(csvPath)
            .csvLabels(labels)
            .jsonl(jsonlPath)
            .metricsTopic(noMetricsTopic ? null : metricsTopic)
            .transactionalId(transactionalId)
            .prometheus(
                prometheusHost, noPrometheus ? SinkConfig.PROMETHEUS_OFF : prometheusPort.port)
            .report(reportDir, logScale, Duration.ofSeconds(reportEverySeconds))
            .kafkaProperties(connection.settings())
            .build();
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

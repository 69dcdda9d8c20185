package io.tpotstream.app.cli;

import io.tpotstream.common.Topics;
import io.tpotstream.sink.SinkConfig;
import io.tpotstream.sink.prometheus.PrometheusView;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The outputs of {@code tpot sink}, one mixin each: an output's flags (where it goes and its
 * details, then the {@code --no-...} that turns it off) and the part of the {@link SinkConfig} they
 * set.
 */
final class SinkOutputs {
  private SinkOutputs() {}

  /** The summaries CSV: {@code --csv}, {@code --no-csv} and its label columns. */
  static final class Csv {
    @Mixin SummariesCsvOptions file;

    @Option(
        names = "--labels",
        split = ",",
        paramLabel = "NAME",
        description =
            "The CSV's label_<name> columns, in order (default: the first summary's labels)."
                + " Absent labels are empty cells.")
    List<String> labels;

    @Option(names = "--no-csv", description = "Write no CSV.")
    boolean off;

    void applyTo(SinkConfig.Builder config) {
      config.csv(off ? null : file.csv).csvLabels(labels);
    }
  }

  /** The summaries with their histograms, one JSON per line, beside the CSV unless named. */
  static final class Jsonl {
    @Option(
        names = "--jsonl",
        description =
            "The summaries with their histograms, one JSON per line, for `tpot report` (default:"
                + " beside the CSV, e.g. out/summaries.jsonl).")
    Path jsonl;

    @Option(names = "--no-jsonl", description = "Write no JSONL file.")
    boolean off;

    /** Sets the JSONL file; {@code csv} is the CSV's path (even with --no-csv) it goes beside. */
    void applyTo(SinkConfig.Builder config, Path csv) {
      config.jsonl(path(csv));
    }

    /** The JSONL file beside {@code csv} or named, null with --no-jsonl. */
    Path path(Path csv) {
      return off ? null : jsonl != null ? jsonl : SinkConfig.jsonlBeside(csv);
    }
  }

  /** The flat records for monitoring stacks, written to a topic in the sink's transactions. */
  static final class MetricsTopic {
    @Option(
        names = "--metrics-topic",
        defaultValue = Topics.METRICS,
        description = "Topic of flat records for monitoring stacks (default: ${DEFAULT-VALUE}).")
    String metricsTopic;

    @Option(
        names = "--transactional-id",
        description = "Transactional id of the metrics producer (default: <group-id>-metrics).")
    String transactionalId;

    @Option(names = "--no-metrics-topic", description = "Write no flat records to Kafka.")
    boolean off;

    void applyTo(SinkConfig.Builder config) {
      config.metricsTopic(off ? null : metricsTopic).transactionalId(transactionalId);
    }
  }

  /** The sink's Prometheus {@code /metrics}. */
  static final class Prometheus {
    @Mixin
    PrometheusPortOptions port = new PrometheusPortOptions(SinkConfig.DEFAULT_PROMETHEUS_PORT);

    @Option(
        names = "--prometheus-host",
        description = "Address /metrics binds to (default: every interface).")
    String prometheusHost;

    @Option(
        names = "--prometheus-max-series",
        defaultValue = "" + PrometheusView.DEFAULT_MAX_SERIES,
        paramLabel = "N",
        description =
            "Most series /metrics shows; the windows of others are counted in"
                + " tpot_dropped_windows_total (default: ${DEFAULT-VALUE}).")
    int maxSeries;

    @Option(
        names = "--prometheus-series-ttl",
        defaultValue = "1h",
        paramLabel = "DURATION",
        description =
            "A series without a new window this long (a finished run) leaves /metrics, making"
                + " room for live ones; 0s keeps every series while the sink runs (default:"
                + " ${DEFAULT-VALUE}).")
    java.time.Duration seriesTtl;

    @Option(names = "--no-prometheus", description = "Serve no /metrics.")
    boolean off;

    void applyTo(SinkConfig.Builder config) {
      config
          .prometheus(prometheusHost, off ? SinkConfig.PROMETHEUS_OFF : port.port)
          .prometheusMaxSeries(maxSeries)
          .prometheusSeriesTtl(seriesTtl);
    }
  }

  /** The charts and report.html, refreshed as windows arrive (off unless a directory is named). */
  static final class Charts {
    @Option(
        names = "--report-dir",
        description = "Refresh the charts and report.html here as windows arrive (default: off).")
    Path reportDir;

    @Mixin LogScaleOptions scale;

    @Option(
        names = "--report-every",
        defaultValue = "10",
        paramLabel = "SECONDS",
        description = "Least time between two report refreshes (default: ${DEFAULT-VALUE} s).")
    int everySeconds;

    void applyTo(SinkConfig.Builder config) {
      config.report(reportDir, scale.logScale, Duration.ofSeconds(everySeconds));
    }
  }
}

package io.tpotstream.sink;

import io.tpotstream.common.Topics;
import io.tpotstream.sink.prometheus.PrometheusView;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a sink reads and where it writes. A null output (or {@link #PROMETHEUS_OFF}) is turned off.
 * Build with {@link #builder(String)}: every output is on by default, as {@code tpot sink} has it.
 *
 * @param bootstrapServers Kafka to read from and write to
 * @param inputTopic the window summaries topic
 * @param groupId consumer group whose committed offsets say which summaries are done
 * @param csv the summaries CSV, or null
 * @param csvLabels the CSV's label columns, or null to take the first summary's labels
 * @param jsonl the summaries as JSON lines (with histograms, for reports), or null
 * @param metricsTopic the flat-record topic, or null
 * @param transactionalId the metrics producer's transactional id (one per running sink)
 * @param prometheusHost address for {@code /metrics}, null for every interface
 * @param prometheusPort port for {@code /metrics}, 0 for any free port, {@link #PROMETHEUS_OFF}
 * @param prometheusMaxSeries most series {@code /metrics} shows (the windows of others are counted)
 * @param prometheusSeriesTtl how long a series stays on {@code /metrics} without a new window
 *     ({@link Duration#ZERO}: for as long as the sink runs)
 * @param reportDir where charts and report.html are refreshed as windows arrive, or null
 * @param reportLogScale latency charts on a log scale
 * @param reportEvery least time between two report refreshes
 * @param kafkaProperties extra client settings (security, timeouts) for every Kafka client
 * @param maxPollRecords most summaries handled in one batch (one fsync, one transaction)
 * @param listener hears about each batch
 */
public record SinkConfig(
    String bootstrapServers,
    String inputTopic,
    String groupId,
    Path csv,
    List<String> csvLabels,
    Path jsonl,
    String metricsTopic,
    String transactionalId,
    String prometheusHost,
    int prometheusPort,
    int prometheusMaxSeries,
    Duration prometheusSeriesTtl,
    Path reportDir,
    boolean reportLogScale,
    Duration reportEvery,
    Map<String, String> kafkaProperties,
    int maxPollRecords,
    SinkListener listener) {

  public static final String DEFAULT_GROUP_ID = "tpot-sink";
  public static final Path DEFAULT_CSV = Path.of("out", "summaries.csv");
  public static final int DEFAULT_PROMETHEUS_PORT = 9404;
  public static final int PROMETHEUS_OFF = -1;

  public SinkConfig {
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    Objects.requireNonNull(inputTopic, "inputTopic");
    Objects.requireNonNull(groupId, "groupId");
    csvLabels = csvLabels == null ? null : List.copyOf(csvLabels);
    transactionalId = transactionalId == null ? groupId + "-metrics" : transactionalId;
    reportEvery = reportEvery == null ? Duration.ofSeconds(10) : reportEvery;
    prometheusSeriesTtl =
        prometheusSeriesTtl == null ? PrometheusView.DEFAULT_SERIES_TTL : prometheusSeriesTtl;
    if (prometheusSeriesTtl.isNegative()) {
      throw new IllegalArgumentException(
          "the /metrics series time to live cannot be negative: " + prometheusSeriesTtl);
    }
    kafkaProperties = kafkaProperties == null ? Map.of() : Map.copyOf(kafkaProperties);
    listener = listener == null ? SinkListener.NONE : listener;
    if (maxPollRecords <= 0) {
      throw new IllegalArgumentException("maxPollRecords must be positive: " + maxPollRecords);
    }
    if (prometheusMaxSeries <= 0) {
      throw new IllegalArgumentException(
          "the /metrics series limit must be positive: " + prometheusMaxSeries);
    }
    if (prometheusPort < PROMETHEUS_OFF || prometheusPort > 65535) {
      throw new IllegalArgumentException("not a port: " + prometheusPort);
    }
  }

  /** The JSONL file beside {@code csv}: same directory and name, extension {@code .jsonl}. */
  public static Path jsonlBeside(Path csv) {
    String name = csv.getFileName().toString();
    int dot = name.lastIndexOf('.');
    return csv.resolveSibling((dot > 0 ? name.substring(0, dot) : name) + ".jsonl");
  }

  public static Builder builder(String bootstrapServers) {
    return new Builder(bootstrapServers);
  }

  /** Defaults: every output on, as {@code tpot sink} without flags. */
  public static final class Builder {
    private final String bootstrapServers;
    private String inputTopic = Topics.WINDOW_SUMMARIES;
    private String groupId = DEFAULT_GROUP_ID;
    private Path csv = DEFAULT_CSV;
    private List<String> csvLabels;
    private Path jsonl = jsonlBeside(DEFAULT_CSV);
    private String metricsTopic = Topics.METRICS;
    private String transactionalId;
    private String prometheusHost;
    private int prometheusPort = DEFAULT_PROMETHEUS_PORT;
    private int prometheusMaxSeries = PrometheusView.DEFAULT_MAX_SERIES;
    private Duration prometheusSeriesTtl;
    private Path reportDir;
    private boolean reportLogScale;
    private Duration reportEvery;
    private Map<String, String> kafkaProperties = Map.of();
    private int maxPollRecords = 500;
    private SinkListener listener;

    private Builder(String bootstrapServers) {
      this.bootstrapServers = bootstrapServers;
    }

    public Builder inputTopic(String topic) {
      this.inputTopic = topic;
      return this;
    }

    public Builder groupId(String groupId) {
      this.groupId = groupId;
      return this;
    }

    /** The CSV, or null for none; the JSONL follows it unless set with {@link #jsonl}. */
    public Builder csv(Path csv) {
      if (this.jsonl != null && this.jsonl.equals(jsonlBeside(this.csv)) && csv != null) {
        this.jsonl = jsonlBeside(csv);
      }
      this.csv = csv;
      return this;
    }

    public Builder csvLabels(List<String> labels) {
      this.csvLabels = labels;
      return this;
    }

    public Builder jsonl(Path jsonl) {
      this.jsonl = jsonl;
      return this;
    }

    public Builder metricsTopic(String topic) {
      this.metricsTopic = topic;
      return this;
    }

    public Builder transactionalId(String transactionalId) {
      this.transactionalId = transactionalId;
      return this;
    }

    public Builder prometheus(String host, int port) {
      this.prometheusHost = host;
      this.prometheusPort = port;
      return this;
    }

    /** The most series {@code /metrics} shows. */
    public Builder prometheusMaxSeries(int maxSeries) {
      this.prometheusMaxSeries = maxSeries;
      return this;
    }

    /** How long a series stays on {@code /metrics} without a new window (zero: always). */
    public Builder prometheusSeriesTtl(Duration ttl) {
      this.prometheusSeriesTtl = ttl;
      return this;
    }

    public Builder noPrometheus() {
      this.prometheusPort = PROMETHEUS_OFF;
      return this;
    }

    public Builder report(Path dir, boolean logScale, Duration every) {
      this.reportDir = dir;
      this.reportLogScale = logScale;
      this.reportEvery = every;
      return this;
    }

    public Builder kafkaProperties(Map<String, String> properties) {
      this.kafkaProperties = properties;
      return this;
    }

    public Builder maxPollRecords(int maxPollRecords) {
      this.maxPollRecords = maxPollRecords;
      return this;
    }

    public Builder listener(SinkListener listener) {
      this.listener = listener;
      return this;
    }

    public SinkConfig build() {
      return new SinkConfig(
          bootstrapServers,
          inputTopic,
          groupId,
          csv,
          csvLabels,
          jsonl,
          metricsTopic,
          transactionalId,
          prometheusHost,
          prometheusPort,
          prometheusMaxSeries,
          prometheusSeriesTtl,
          reportDir,
          reportLogScale,
          reportEvery,
          kafkaProperties,
          maxPollRecords,
          listener);
    }
  }
}

package io.tpotstream.sink;

import static org.apache.kafka.common.acl.AclOperation.CREATE;
import static org.apache.kafka.common.acl.AclOperation.DESCRIBE;
import static org.apache.kafka.common.acl.AclOperation.READ;
import static org.apache.kafka.common.acl.AclOperation.WRITE;

import io.tpotstream.common.kafka.KafkaGroups;
import io.tpotstream.common.kafka.KafkaNeeds;
import io.tpotstream.common.metrics.MetricsServer;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import io.tpotstream.sink.file.CsvFile;
import io.tpotstream.sink.file.JsonlFile;
import io.tpotstream.sink.file.PositionsFile;
import io.tpotstream.sink.metrics.MetricsTopic;
import io.tpotstream.sink.prometheus.PrometheusEndpoint;
import io.tpotstream.sink.prometheus.PrometheusView;
import io.tpotstream.sink.record.FlatRecord;
import io.tpotstream.sink.report.Report;
import io.tpotstream.sink.report.ReportModel;
import java.io.Closeable;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sink: reads window summaries (read_committed, a new group from the earliest) and writes each
 * to the CSV, the JSONL file, the metrics topic, {@code /metrics} and the report, each exactly once
 * across crashes. Per batch: rows appended to the files and fsynced, then the metrics records and
 * the consumed offsets committed in one transaction (or the offsets alone when the metrics topic is
 * off). A crash before the commit makes the next start read the batch again: the files skip the
 * (series, window) pairs they already hold, and the aborted transaction left nothing visible.
 *
 * <p>The consumer is assigned every partition of the input topic (no group membership, so a restart
 * after a crash resumes at once); run one sink per group id. Being no member, its group's offsets
 * are deleted by Kafka {@code offsets.retention.minutes} after its last commit: the positions kept
 * beside its files ({@link PositionsFile}) let it resume after a pause of any length.
 */
public final class Sink implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(Sink.class);
  private static final Duration POLL = Duration.ofMillis(200);
  private static final Duration PARTITION_CHECK = Duration.ofSeconds(10);

  /** The live report charts each series' latest windows only, so drawing it stays bounded. */
  static final int REPORT_POINTS_PER_SERIES = 2_000;

  private final SinkConfig config;
  private final List<Closeable> resources = new ArrayList<>();
  private final PrometheusView prometheusView;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final Object progress = new Object();
  private KafkaConsumer<String, byte[]> consumer;
  private MetricsTopic metrics;
  private CsvFile csv;
  private JsonlFile jsonl;
  private PositionsFile positions;
  private MetricsServer prometheus;
  private ReportModel report;
  private Thread thread;
  private volatile boolean closing;
  private volatile Throwable failure;
  private volatile long written;
  private volatile long latestWindowEndMs = -1;
  private boolean reportDirty;
  private long lastReportNs;
  private long lastPartitionCheckNs;

  private Sink(SinkConfig config) {
    this.config = config;
    this.prometheusView =
        new PrometheusView(
            config.prometheusMaxSeries(), config.prometheusSeriesTtl(), System::currentTimeMillis);
  }

  /**
   * Opens the outputs, connects to Kafka and starts the sink's thread.
   *
   * @throws IllegalStateException when Kafka cannot be reached or a transaction cannot start
   * @throws IllegalArgumentException when an existing CSV has other columns
   */
  public static Sink start(SinkConfig config) {
    Sink sink = new Sink(config);
    try {
      sink.open();
    } catch (RuntimeException e) {
      sink.closeResources();
      throw e;
    }
    sink.thread = new Thread(sink::run, "tpot-sink");
    sink.thread.start();
    return sink;
  }

  /**
   * What a sink needs on a secured cluster: read the summaries as its group, read back and write
   * the metrics topic in transactions (creating missing topics); docs/kafka.md lists the ACLs.
   */
  public static KafkaNeeds kafkaNeeds(SinkConfig config) {
    KafkaNeeds needs =
        KafkaNeeds.none()
            .topic(config.inputTopic(), DESCRIBE, READ, CREATE)
            .group(config.groupId(), READ);
    if (config.metricsTopic() != null) {
      needs
          .topic(config.metricsTopic(), DESCRIBE, READ, WRITE, CREATE)
          .transactionalId(config.transactionalId(), WRITE);
    }
    return needs;
  }

  /** Summaries this sink has committed since it started (each counted once). */
  public long summariesWritten() {
    return written;
  }

  /** End (epoch ms) of the latest window committed since start, or -1. */
  public long latestWindowEndMs() {
    return latestWindowEndMs;
  }

  /**
   * Waits until a window ending at or after {@code windowEndMs} is committed.
   *
   * @return false on timeout
   * @throws IllegalStateException when the sink stopped on an error
   */
  public boolean awaitWindowEnd(long windowEndMs, Duration timeout) throws InterruptedException {
    long deadlineNs = System.nanoTime() + timeout.toNanos();
    synchronized (progress) {
      while (latestWindowEndMs < windowEndMs) {
        throwIfFailed();
        if (stopped.getCount() == 0) {
          return false;
        }
        long leftMs = TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime());
        if (leftMs <= 0) {
          return false;
        }
        progress.wait(Math.min(leftMs, 200));
      }
    }
    return true;
  }

  /** The port {@code /metrics} is served on, when it is. */
  public OptionalInt prometheusPort() {
    return prometheus == null ? OptionalInt.empty() : OptionalInt.of(prometheus.port());
  }

  /**
   * Blocks until the sink stops (after {@link #close()} or an error).
   *
   * @throws IllegalStateException with the error that stopped it
   */
  public void await() throws InterruptedException {
    stopped.await();
    throwIfFailed();
  }

  /** Stops after the batch in progress, renders the report one last time and closes the outputs. */
  @Override
  public void close() {
    closing = true;
    if (consumer != null) {
      consumer.wakeup();
    }
    try {
      if (thread != null && thread != Thread.currentThread()) {
        thread.join();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void open() {
    openFiles();
    Properties client = KafkaSetup.clientProps(config);
    int partitions;
    Map<TopicPartition, OffsetAndMetadata> committed;
    boolean inputEmpty;
    Map<TopicPartition, Long> beginnings;
    try (Admin admin = Admin.create(KafkaSetup.adminProps(config))) {
      partitions = KafkaSetup.ensureTopics(admin, config);
      committed =
          KafkaGroups.committedOffsets(
              admin, KafkaSetup.connection(config), config.groupId(), config.inputTopic());
      inputEmpty = KafkaSetup.isEmpty(admin, config.inputTopic(), partitions);
      beginnings =
          KafkaSetup.offsets(admin, config.inputTopic(), partitions, OffsetSpec.earliest());
    }
    Map<TopicPartition, Long> resume = storedAhead(committed);
    // a new group is offered every summary the input holds again (none: nothing to learn)
    boolean offeredAgain = committed.isEmpty() && resume.isEmpty() && !inputEmpty;
    if (offeredAgain) {
      learnHistory();
    }
    Map<Integer, Long> skipped = skipped(committed, resume, beginnings);
    if (csv != null && !csv.hasRows() && !skipped.isEmpty()) {
      LOG.warn(
          "{} is new but group {} starts {} past its beginning (partition=offset {}): it gets only"
              + " the summaries after that; use a new --group-id to write every summary",
          config.csv(),
          config.groupId(),
          config.inputTopic(),
          skipped);
    }
    consumer = new KafkaConsumer<>(consumerProps(client));
    resources.add(0, consumer::close);
    assignPartitions();
    resumeFromPositions(resume, committed);
    if (config.metricsTopic() != null) {
      Properties producer = new Properties();
      producer.putAll(client);
      // a transaction coordinator that never answers ends the start within half a minute
      producer.putIfAbsent("max.block.ms", "30000");
      metrics = new MetricsTopic(producer, config.metricsTopic(), config.transactionalId());
      resources.add(metrics);
    }
    if (config.prometheusPort() != SinkConfig.PROMETHEUS_OFF) {
      prometheus =
          PrometheusEndpoint.start(
              config.prometheusHost(), config.prometheusPort(), prometheusView);
      resources.add(prometheus);
    }
    reportDirty = report != null && !report.isEmpty();
    LOG.info(
        "sink reading {} ({} partition(s)) from {} as group {}: CSV {}, JSONL {}, metrics topic {},"
            + " /metrics {}, report {}",
        config.inputTopic(),
        partitions,
        config.bootstrapServers(),
        config.groupId(),
        orOff(config.csv()),
        orOff(config.jsonl()),
        orOff(config.metricsTopic()),
        prometheus == null ? "off" : "on port " + prometheus.port(),
        orOff(config.reportDir()));
  }

  /**
   * Locks and opens the files (a second writer fails here, before Kafka is asked anything), reading
   * back only their last lines: the most a crash can leave written but not committed.
   */
  private void openFiles() {
    long tail = tailLines();
    if (config.csv() != null) {
      csv = CsvFile.open(config.csv(), config.csvLabels(), tail);
      resources.add(csv);
    }
    if (config.reportDir() != null) {
      report = new ReportModel(REPORT_POINTS_PER_SERIES);
    }
    if (config.jsonl() != null) {
      jsonl =
          JsonlFile.open(
              config.jsonl(),
              tail,
              summary -> {
                prometheusView.restore(summary);
                if (report != null) {
                  report.add(summary);
                }
              });
      resources.add(jsonl);
    }
    Path beside = config.csv() != null ? config.csv() : config.jsonl();
    if (beside != null) {
      positions =
          new PositionsFile(PositionsFile.beside(beside), config.groupId(), config.inputTopic());
    }
  }

  /**
   * The positions kept beside the files that are ahead of the group's committed offsets (none
   * committed: Kafka deleted a member-less group's offsets after {@code offsets.retention.minutes},
   * or the group is new to these files), partition by partition.
   */
  private Map<TopicPartition, Long> storedAhead(Map<TopicPartition, OffsetAndMetadata> committed) {
    Map<TopicPartition, Long> ahead = new HashMap<>();
    if (positions == null) {
      return ahead;
    }
    positions
        .read()
        .forEach(
            (partition, offset) -> {
              TopicPartition tp = new TopicPartition(config.inputTopic(), partition);
              OffsetAndMetadata known = committed.get(tp);
              if (known == null || known.offset() < offset) {
                ahead.put(tp, offset);
              }
            });
    return ahead;
  }

  /**
   * Where this sink starts reading, for each partition where that is past the partition's beginning
   * (summaries the topic still holds that a new file would never get): the kept position when there
   * is one, else the committed offset.
   */
  private static Map<Integer, Long> skipped(
      Map<TopicPartition, OffsetAndMetadata> committed,
      Map<TopicPartition, Long> resume,
      Map<TopicPartition, Long> beginnings) {
    Map<Integer, Long> skipped = new TreeMap<>();
    beginnings.forEach(
        (tp, beginning) -> {
          OffsetAndMetadata known = committed.get(tp);
          Long start = resume.getOrDefault(tp, known == null ? null : known.offset());
          if (start != null && start > beginning) {
            skipped.put(tp.partition(), start);
          }
        });
    return skipped;
  }

  /**
   * Starts each partition in {@code resume} at its kept position instead of where the group's
   * offsets say (a position past the partition's end, of a topic deleted and created again, is left
   * alone), and writes the positions the sink starts from.
   */
  private void resumeFromPositions(
      Map<TopicPartition, Long> resume, Map<TopicPartition, OffsetAndMetadata> committed) {
    if (positions == null) {
      return;
    }
    Map<TopicPartition, Long> ends = consumer.endOffsets(consumer.assignment(), KafkaSetup.TIMEOUT);
    Map<Integer, Long> start = new HashMap<>();
    committed.forEach((tp, o) -> start.put(tp.partition(), o.offset()));
    resume.forEach(
        (tp, offset) -> {
          Long end = ends.get(tp);
          if (end == null || offset > end) {
            LOG.warn(
                "{} says partition {} was read up to offset {}, but it ends at {} (the topic was"
                    + " created again?): that partition starts where group {} says",
                positions.path(),
                tp,
                offset,
                end,
                config.groupId());
            OffsetAndMetadata known = committed.get(tp);
            start.put(tp.partition(), known == null ? 0L : known.offset());
            return;
          }
          consumer.seek(tp, offset);
          start.put(tp.partition(), offset);
        });
    if (!resume.isEmpty()) {
      LOG.warn(
          "group {} has {} for {} (Kafka deletes the offsets of a group without members"
              + " offsets.retention.minutes after its last commit): resuming after what the files"
              + " hold, as {} says: {}",
          config.groupId(),
          committed.isEmpty() ? "no committed offsets" : "older committed offsets",
          config.inputTopic(),
          positions.path(),
          resume);
    }
    if (!start.isEmpty()) {
      positions.advance(start); // a file a crash left one batch behind catches up now
    }
  }

  /** Lines (records) read back from each output's end: the most a crash leaves uncommitted. */
  private long tailLines() {
    return Math.max(CsvFile.DEFAULT_TAIL_ROWS, 2L * config.maxPollRecords());
  }

  /**
   * A group without committed offsets reads every summary from the earliest: the files learn, from
   * one pass over each (memory stays bounded), which windows they already hold.
   */
  private void learnHistory() {
    if (jsonl != null && jsonl.hasSummaries()) {
      LOG.info(
          "group {} is new: reading {} once for the windows it holds",
          config.groupId(),
          jsonl.path());
      jsonl.scanHistory();
    }
    if (csv != null && csv.hasRows()) {
      LOG.info(
          "group {} is new: reading {} once for the windows it holds",
          config.groupId(),
          csv.path());
      csv.scanHistory();
    }
  }

  private Properties consumerProps(Properties client) {
    Properties props = new Properties();
    props.putAll(client);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId());
    props.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(config.maxPollRecords()));
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return props;
  }

  /** Assigns every partition of the input topic, including partitions added since the start. */
  private void assignPartitions() {
    List<PartitionInfo> infos = consumer.partitionsFor(config.inputTopic(), KafkaSetup.TIMEOUT);
    Set<TopicPartition> partitions = new HashSet<>(consumer.assignment());
    boolean added = false;
    for (PartitionInfo info : infos) {
      added |= partitions.add(new TopicPartition(info.topic(), info.partition()));
    }
    if (added) {
      consumer.assign(partitions);
    }
    lastPartitionCheckNs = System.nanoTime();
  }

  private void checkPartitions() {
    try {
      assignPartitions();
    } catch (KafkaException e) {
      lastPartitionCheckNs = System.nanoTime();
      LOG.warn("cannot check the partitions of {}: {}", config.inputTopic(), e.getMessage());
    }
  }

  private void run() {
    try {
      while (!closing) {
        Duration sinceCheck = Duration.ofNanos(System.nanoTime() - lastPartitionCheckNs);
        if (sinceCheck.compareTo(consumer.assignment().isEmpty() ? POLL : PARTITION_CHECK) > 0) {
          checkPartitions();
        }
        ConsumerRecords<String, byte[]> records = consumer.poll(POLL);
        if (!records.isEmpty()) {
          process(records);
        }
        refreshReport(false);
      }
    } catch (WakeupException e) {
      if (!closing) {
        failure = e;
      }
    } catch (Throwable e) {
      failure = e;
      LOG.error("sink stopped: {}", e.getMessage());
    } finally {
      try {
        refreshReport(true);
      } catch (RuntimeException e) {
        LOG.warn("cannot write the final report: {}", e.getMessage());
      }
      closeResources();
      synchronized (progress) {
        stopped.countDown();
        progress.notifyAll();
      }
    }
  }

  private void process(ConsumerRecords<String, byte[]> records) {
    Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
    List<WindowSummary> summaries = new ArrayList<>();
    List<Long> summaryTimestamps = new ArrayList<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      next.put(
          new TopicPartition(record.topic(), record.partition()),
          new OffsetAndMetadata(record.offset() + 1));
      try {
        if (record.value() == null) {
          throw new IllegalArgumentException("not a window summary: no value");
        }
        summaries.add(WindowSummaryCodec.decode(record.value()));
        summaryTimestamps.add(record.timestamp());
      } catch (IllegalArgumentException e) {
        LOG.warn(
            "{}-{} offset {} skipped: {}",
            record.topic(),
            record.partition(),
            record.offset(),
            e.getMessage().lines().findFirst().orElse(""));
      }
    }
    List<FlatRecord> flat = summaries.stream().map(FlatRecord::of).toList();
    int n = summaries.size();
    long[] timestamps = new long[n];
    for (int i = 0; i < n; i++) {
      timestamps[i] = MetricsTopic.timestamp(flat.get(i), summaryTimestamps.get(i));
    }
    // the report holds what the JSONL file (else the CSV) holds: a summary read again is not added
    boolean[] fresh = new boolean[n];
    Arrays.fill(fresh, jsonl == null && csv == null);
    if (jsonl != null) {
      for (int i = 0; i < n; i++) {
        fresh[i] = jsonl.append(summaries.get(i));
      }
      jsonl.sync();
    }
    if (csv != null) {
      for (int i = 0; i < n; i++) {
        boolean appended = csv.append(flat.get(i));
        fresh[i] = jsonl == null ? appended : fresh[i];
      }
      csv.sync();
    }
    config.listener().filesWritten(n);
    if (metrics != null) {
      metrics.write(
          flat,
          timestamps,
          next,
          consumer.groupMetadata(),
          () -> config.listener().beforeCommit(n));
    } else {
      commitOffsets(next);
    }
    keepPositions(next);
    long maxEndMs = latestWindowEndMs;
    for (int i = 0; i < n; i++) {
      WindowSummary summary = summaries.get(i);
      prometheusView.add(summary);
      if (report != null && fresh[i]) {
        reportDirty |= report.add(summary);
      }
      maxEndMs = Math.max(maxEndMs, summary.windowEndMs());
    }
    synchronized (progress) {
      written += n;
      latestWindowEndMs = maxEndMs;
      progress.notifyAll();
    }
    if (n > 0) {
      LOG.info(
          "wrote {} summaries up to the window ending {} ({} since start)",
          n,
          Instant.ofEpochMilli(maxEndMs),
          written);
    }
    config.listener().committed(n, written);
  }

  private void commitOffsets(Map<TopicPartition, OffsetAndMetadata> next) {
    try {
      consumer.commitSync(next);
    } catch (WakeupException e) {
      // close() woke the consumer up: finish this batch, the loop ends at the next poll
      consumer.commitSync(next);
      keepPositions(next);
      throw e;
    } catch (KafkaException e) {
      throw new IllegalStateException("cannot commit offsets: " + e.getMessage(), e);
    }
  }

  /** Keeps the committed {@code next} offsets beside the files, for a group Kafka forgets. */
  private void keepPositions(Map<TopicPartition, OffsetAndMetadata> next) {
    if (positions != null) {
      Map<Integer, Long> committed = new HashMap<>();
      next.forEach((tp, o) -> committed.put(tp.partition(), o.offset()));
      positions.advance(committed);
    }
  }

  private void refreshReport(boolean last) {
    if (report == null || !reportDirty) {
      return;
    }
    if (!last && System.nanoTime() - lastReportNs < config.reportEvery().toNanos()) {
      return;
    }
    try {
      Report.write(report, config.reportDir(), config.reportLogScale());
    } catch (RuntimeException e) {
      LOG.warn("cannot refresh the report in {}: {}", config.reportDir(), e.getMessage());
    }
    reportDirty = false;
    lastReportNs = System.nanoTime();
  }

  private void closeResources() {
    for (Closeable resource : resources) {
      try {
        resource.close();
      } catch (Exception e) {
        LOG.warn("closing the sink: {}", e.getMessage());
      }
    }
    resources.clear();
  }

  private void throwIfFailed() {
    if (failure != null) {
      throw new IllegalStateException("the sink stopped: " + failure.getMessage(), failure);
    }
  }

  private static String orOff(Object output) {
    return output == null ? "off" : output.toString();
  }
}

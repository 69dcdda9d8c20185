package io.tpotstream.bench.history;

import io.tpotstream.bench.BenchEnv;
import io.tpotstream.bench.BenchReport;
import io.tpotstream.bench.jvm.ChildJvm;
import io.tpotstream.bench.workload.BenchTopics;
import io.tpotstream.common.Json;
import io.tpotstream.common.summary.WindowSummaryCodec;
import io.tpotstream.sink.record.FlatRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.function.LongFunction;
import java.util.function.ToLongFunction;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * B6: a sink restarted over files holding a long history of 10 s windows × 100 series (its group
 * has committed offsets, as a sink that has run for months): the time from its JVM's start to the
 * first new summary written and the heap after a full GC, against the same start over empty files.
 * History lengths in hours: {@code -Dtpot.bench.b6.hours=0,24,168} (the default; quick: 0,24).
 */
public final class SinkHistory {
  /** New windows waiting for the sink when it starts. */
  static final int NEW_WINDOWS = 10;

  /** Metrics records already in the topic: the history's last windows. */
  static final int METRICS_WINDOWS = 20;

  private SinkHistory() {}

  public static void run(BenchEnv env, BenchReport report) {
    List<Long> hours = hours(env);
    report.section(
        "B6",
        "sink start-up and heap over a long history ("
            + HistoryFiles.SERIES
            + " series, 10 s windows, CSV and JSONL)");
    Path dir = env.workDir().resolve("b6");
    HistoryFiles history = new HistoryFiles();
    try {
      Files.createDirectories(dir);
      for (long h : hours) {
        once(env, report, history, dir, h);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static List<Long> hours(BenchEnv env) {
    String given = System.getProperty("tpot.bench.b6.hours", env.pick("0,24,168", "0,24"));
    List<Long> hours = new ArrayList<>();
    for (String h : given.split(",")) {
      hours.add(Long.parseLong(h.trim()));
    }
    return hours;
  }

  private static void once(
      BenchEnv env, BenchReport report, HistoryFiles history, Path dir, long hours)
      throws IOException, InterruptedException {
    String label = hours == 0 ? "empty files" : describe(hours) + " of history";
    long windows = hours * 3600_000L / HistoryFiles.WINDOW_MS;
    long nowMs = System.currentTimeMillis();
    // every window ends before now: the broker takes no record from the future
    long lastEndMs =
        (nowMs / HistoryFiles.WINDOW_MS - 3 * NEW_WINDOWS - 60) * HistoryFiles.WINDOW_MS;
    Path csv = dir.resolve("summaries.csv");
    Path jsonl = dir.resolve("summaries.jsonl");
    long writeNs = System.nanoTime();
    long bytes = history.write(csv, jsonl, windows, lastEndMs);
    writeNs = System.nanoTime() - writeNs;
    if (windows > 0) {
      report.figure(
          label + ": rows per file, both files' size",
          BenchReport.count(windows * HistoryFiles.SERIES)
              + " rows, "
              + String.format(Locale.ROOT, "%.2f GB", bytes / 1e9)
              + " (written and synced in "
              + BenchReport.seconds(writeNs)
              + ")");
    }

    try {
      int repeats = env.pick(3, 1);
      List<SinkStartChild.Started> starts = new ArrayList<>();
      for (int r = 0; r < repeats; r++) {
        long historyEndMs = lastEndMs + (long) r * NEW_WINDOWS * HistoryFiles.WINDOW_MS;
        starts.add(start(env, history, csv, Math.min(windows, METRICS_WINDOWS), historyEndMs));
      }
      report.headline(
          label + ": JVM start to first summary written",
          "median of "
              + repeats
              + ": "
              + spread(starts, s -> s.jvmToStartMs() + s.firstMs(), SinkHistory::ms)
              + "; Sink.start itself "
              + spread(starts, SinkStartChild.Started::startMs, SinkHistory::ms));
      report.headline(
          label + ": CPU time and bytes read until all written",
          spread(starts, SinkStartChild.Started::cpuMs, SinkHistory::ms)
              + "; "
              + spread(starts, SinkStartChild.Started::bytesRead, BenchReport::mb));
      report.headline(
          label + ": heap after a full GC",
          spread(starts, SinkStartChild.Started::heapBytes, BenchReport::mb));
    } finally {
      Files.deleteIfExists(csv);
      Files.deleteIfExists(jsonl);
    }
  }

  /** The median of {@code figure} over {@code starts}, then its range when there are more. */
  private static String spread(
      List<SinkStartChild.Started> starts,
      ToLongFunction<SinkStartChild.Started> figure,
      LongFunction<String> format) {
    long[] values = starts.stream().mapToLong(figure).sorted().toArray();
    String median = format.apply(values[values.length / 2]);
    return values.length == 1
        ? median
        : median
            + " (range "
            + format.apply(values[0])
            + " to "
            + format.apply(values[values.length - 1])
            + ")";
  }

  /**
   * One sink start over the files, whose history ends at {@code historyEndMs}: its group resumes
   * (committed offsets), the metrics topic holds the last {@code heldWindows} windows, and {@link
   * #NEW_WINDOWS} new windows wait in the summaries topic.
   */
  private static SinkStartChild.Started start(
      BenchEnv env, HistoryFiles history, Path csv, long heldWindows, long historyEndMs)
      throws IOException, InterruptedException {
    String servers = env.bootstrapServers();
    String input = BenchTopics.unique("bench-b6-summaries");
    String metrics = BenchTopics.unique("bench-b6-metrics");
    String group = BenchTopics.unique("bench-b6-sink");
    BenchTopics.create(servers, input, 1);
    BenchTopics.create(servers, metrics, 1);
    try (KafkaProducer<String, byte[]> producer = producer(servers)) {
      for (long w = heldWindows - 1; w >= 0; w--) {
        sendMetrics(producer, metrics, history, historyEndMs - w * HistoryFiles.WINDOW_MS);
      }
      for (int w = 1; w <= NEW_WINDOWS; w++) {
        long endMs = historyEndMs + w * HistoryFiles.WINDOW_MS;
        for (int s = 0; s < HistoryFiles.SERIES; s++) {
          producer.send(
              new ProducerRecord<>(
                  input,
                  HistoryFiles.series(s),
                  WindowSummaryCodec.encode(history.summary(s, endMs))));
        }
      }
    }
    commitStart(servers, group, new TopicPartition(input, 0));

    int expected = NEW_WINDOWS * HistoryFiles.SERIES;
    try (ChildJvm child =
        ChildJvm.start(
            SinkStartChild.class,
            env.childJvmOptions(),
            List.of(servers, input, metrics, group, csv.toString(), Integer.toString(expected)),
            env.workDir().resolve("b6-sink-" + input + ".log"))) {
      SinkStartChild.Started started =
          Json.MAPPER.treeToValue(
              child.await("started", Duration.ofMinutes(5)).json(), SinkStartChild.Started.class);
      child.waitFor(Duration.ofMinutes(1));
      if (started.written() != expected) {
        throw new IllegalStateException(
            "the sink wrote " + started.written() + " summaries, not " + expected);
      }
      return started;
    }
  }

  private static String ms(long ms) {
    return String.format(Locale.ROOT, "%,d ms", ms);
  }

  private static String describe(long hours) {
    if (hours % 24 != 0) {
      return hours + " h";
    }
    long days = hours / 24;
    return days == 1 ? "1 day" : days == 7 ? "1 week" : days + " days";
  }

  private static void sendMetrics(
      KafkaProducer<String, byte[]> producer, String topic, HistoryFiles history, long endMs) {
    for (int s = 0; s < HistoryFiles.SERIES; s++) {
      FlatRecord record = FlatRecord.of(history.summary(s, endMs));
      producer.send(new ProducerRecord<>(topic, null, endMs, record.series(), record.toJson()));
    }
  }

  /** The group has committed offsets (at the topic's start): a sink resuming, not a new one. */
  private static void commitStart(String servers, String group, TopicPartition partition) {
    try (Admin admin = Admin.create(BenchTopics.adminProps(servers))) {
      admin
          .alterConsumerGroupOffsets(group, Map.of(partition, new OffsetAndMetadata(0)))
          .all()
          .get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot commit offsets for " + group, e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static KafkaProducer<String, byte[]> producer(String servers) {
    var props = io.tpotstream.common.kafka.KafkaConnection.of(servers).clientProperties();
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    return new KafkaProducer<>(props);
  }
}

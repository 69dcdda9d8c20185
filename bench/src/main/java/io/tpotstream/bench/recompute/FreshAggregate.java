package io.tpotstream.bench.recompute;

import io.tpotstream.bench.BenchEnv;
import io.tpotstream.bench.BenchReport;
import io.tpotstream.bench.throughput.PlainConsumer;
import io.tpotstream.bench.throughput.StreamsCounter;
import io.tpotstream.bench.workload.BenchTopics;
import io.tpotstream.common.jvm.JavaLauncher;
import io.tpotstream.common.jvm.JvmOptions;
import io.tpotstream.common.kafka.KafkaConnection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.config.TopicConfig;

/**
 * B1's second part, measured as a user runs the aggregator: realistic events (B5's) loaded by kcat,
 * a plain KafkaConsumer in a fresh JVM reading them all (process start to exit; kcat reading them
 * too, a second anchor), and a fresh {@code tpot aggregate} process (the launcher's JVM settings)
 * over the same topic, its rate taken from the broker's append times on its output topic: end to
 * end from the process start to the last summary, steady state from the first summary to the last.
 * Every summary is compared with the independent recomputation of the same events.
 */
public final class FreshAggregate {
  private static final Duration TIMEOUT = Duration.ofMinutes(15);

  /** The figures of one run, for the smoke test. */
  record Outcome(long records, long summaries, boolean identical) {}

  private FreshAggregate() {}

  public static void run(BenchEnv env, BenchReport report, long target) {
    if (!Kcat.available()) {
      report.note("fresh processes: skipped, kcat is not installed (apt-get install kcat)");
      return;
    }
    measure(env, report, target);
  }

  static Outcome measure(BenchEnv env, BenchReport report, long target) {
    Path dir = env.workDir().resolve("b1-fresh-" + Long.toHexString(System.nanoTime()));
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Recompute.Generated events = Recompute.generate(target, dir);
    long records = events.records();
    report.note(
        "fresh processes, as a user runs them: "
            + BenchReport.count(records)
            + " realistic events (B5's) loaded by kcat, "
            + Recompute.PARTITIONS
            + " partitions");
    String source = BenchTopics.unique("bench-b1-fresh-events");
    Recompute.loadWithKcat(env, events, source, dir);

    Timed.Run plain =
        Timed.run(
            JavaLauncher.builder(
                    List.of(),
                    PlainConsumer.class,
                    env.childJvmOptions(),
                    List.of(env.bootstrapServers(), source))
                .command(),
            dir.resolve("plain.out"),
            dir.resolve("plain.log"),
            TIMEOUT.toSeconds());
    String read = Recompute.readLines(dir.resolve("plain.out")).get(0);
    Recompute.check(read.equals("records " + records), "the plain consumer read " + read);
    double plainRate = plain.perSecond(records);
    report.headline(
        "plain KafkaConsumer, a fresh JVM (process start to exit)", Recompute.rate(plain, records));

    Counted counter = countWithStreams(env, source, records, dir);
    double counterEndToEnd = records / ((counter.lastMs() - counter.startMs()) / 1e3);
    double counterSteady = records / (Math.max(1, counter.lastMs() - counter.firstMs()) / 1e3);
    report.headline(
        "Kafka Streams counter, a fresh process (the aggregator's settings, a processor that only"
            + " counts): end to end, steady (first record to last)",
        BenchReport.perSecond(counterEndToEnd, "events")
            + ", "
            + BenchReport.perSecond(counterSteady, "events"));

    // kcat, then the aggregator, in pairs: the machine's speed drifts between minutes, each pair
    // meets the same; the median pair is the result, every pair is printed
    int pairs = env.pick(PAIRS, 1);
    long afterFirstWindow = events.workload().recordsFrom(events.workload().firstWindowEndMs());
    List<double[]> rates = new ArrayList<>(); // kcat, end to end, steady
    List<String> reference = new ArrayList<>(events.reference());
    reference.sort(null);
    boolean identical = true;
    int summaries = 0;
    for (int pair = 1; pair <= pairs; pair++) {
      String run = pairs == 1 ? "" : " (pair " + pair + " of " + pairs + ")";
      Timed.Run kcat =
          Timed.run(
              Kcat.readAll(env.bootstrapServers(), source),
              Path.of("/dev/null"),
              dir.resolve("kcat-consume-" + pair + ".log"),
              TIMEOUT.toSeconds());
      double kcatRate = kcat.perSecond(records);
      report.figure(
          "kcat -C reading them (librdkafka, to /dev/null)" + run, Recompute.rate(kcat, records));

      Appended out = aggregate(env, source, events.reference().size(), dir.resolve("pair-" + pair));
      List<String> got = new ArrayList<>(out.values());
      got.sort(null);
      boolean same = got.equals(reference);
      identical &= same;
      summaries = got.size();
      double endToEnd = records / ((out.lastMs() - out.startMs()) / 1e3);
      double steady = afterFirstWindow / (Math.max(1, out.lastMs() - out.firstMs()) / 1e3);
      rates.add(new double[] {kcatRate, endToEnd, steady});
      report.figure(
          "tpot aggregate, a fresh process" + run + ": end to end, steady state",
          BenchReport.perSecond(endToEnd, "events")
              + " (start to the last summary appended, "
              + BenchReport.seconds((out.lastMs() - out.startMs()) * 1_000_000L)
              + "), "
              + BenchReport.perSecond(steady, "events")
              + " ("
              + BenchReport.count(afterFirstWindow)
              + " events after the first window in "
              + BenchReport.seconds((out.lastMs() - out.firstMs()) * 1_000_000L)
              + "; first summary "
              + BenchReport.seconds((out.firstMs() - out.startMs()) * 1_000_000L)
              + " after the start)"
              + String.format(
                  Locale.ROOT, "; %.2f, %.2f x kcat", endToEnd / kcatRate, steady / kcatRate));
      report.figure(
          "summaries out" + run,
          BenchReport.count(got.size())
              + (same
                  ? ", identical to the independent recomputation"
                  : ", DIFFERENT from the independent recomputation"));
    }
    double kcatRate = median(rates, r -> r[0]);
    double endToEnd = median(rates, r -> r[1]);
    double steady = median(rates, r -> r[2]);
    String of = pairs == 1 ? "" : " (medians of " + pairs + " pairs)";
    report.headline(
        "tpot aggregate, a fresh process: end to end, steady state" + of,
        BenchReport.perSecond(endToEnd, "events") + ", " + BenchReport.perSecond(steady, "events"));
    report.headline(
        "tpot aggregate / plain consumer, fresh processes: end to end, steady state" + of,
        String.format(Locale.ROOT, "%.2f, %.2f", endToEnd / plainRate, steady / plainRate));
    report.headline(
        "tpot aggregate / kcat -C: end to end, steady state" + of,
        String.format(
            Locale.ROOT,
            "%.2f, %.2f (each pair's own kcat: %s)",
            median(rates, r -> r[1] / r[0]),
            median(rates, r -> r[2] / r[0]),
            String.join(
                "; ",
                rates.stream()
                    .map(r -> String.format(Locale.ROOT, "%.2f, %.2f", r[1] / r[0], r[2] / r[0]))
                    .toList())));
    report.headline(
        "the Kafka Streams counter / kcat -C: end to end, steady state" + of,
        String.format(
            Locale.ROOT, "%.2f, %.2f", counterEndToEnd / kcatRate, counterSteady / kcatRate));
    report.headline(
        "tpot aggregate / the Kafka Streams counter: end to end, steady state" + of,
        String.format(
            Locale.ROOT, "%.2f, %.2f", endToEnd / counterEndToEnd, steady / counterSteady));
    report.figure(
        "summaries out",
        BenchReport.count(summaries)
            + (identical
                ? ", identical to the independent recomputation"
                : ", DIFFERENT from the independent recomputation"));
    return new Outcome(records, summaries, identical);
  }

  /** Pairs of kcat and a fresh aggregate in the full run. */
  static final int PAIRS = 3;

  private static double median(List<double[]> rows, ToDoubleFunction<double[]> f) {
    double[] v = rows.stream().mapToDouble(f).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  /** The counter's process start and the wall-clock times of its first and last record. */
  private record Counted(long startMs, long firstMs, long lastMs) {}

  /** Runs {@link StreamsCounter} in a fresh JVM with the aggregate command's JVM options. */
  private static Counted countWithStreams(BenchEnv env, String source, long records, Path dir) {
    List<String> options = new ArrayList<>(JvmOptions.of("aggregate"));
    options.addAll(env.childJvmOptions());
    long startMs = System.currentTimeMillis();
    Timed.run(
        JavaLauncher.builder(
                List.of(),
                StreamsCounter.class,
                options,
                List.of(
                    env.bootstrapServers(),
                    source,
                    Integer.toString(Recompute.PARTITIONS),
                    Long.toString(records)))
            .command(),
        dir.resolve("counter.out"),
        dir.resolve("counter.log"),
        TIMEOUT.toSeconds());
    String[] line =
        Recompute.readLines(dir.resolve("counter.out")).stream()
            .filter(l -> l.startsWith("records "))
            .findFirst()
            .orElse("no result")
            .split(" ");
    Recompute.check(
        line[0].equals("records") && Long.parseLong(line[1]) == records,
        "the Kafka Streams counter said " + String.join(" ", line));
    return new Counted(startMs, Long.parseLong(line[2]), Long.parseLong(line[3]));
  }

  /** The summaries as the broker appended them, with its append times and the process start. */
  private record Appended(List<String> values, long startMs, long firstMs, long lastMs) {}

  private static Appended aggregate(BenchEnv env, String source, int expected, Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String output = BenchTopics.unique("bench-b1-fresh-summaries");
    createWithAppendTimes(env.bootstrapServers(), output);
    List<String> command =
        Recompute.tpot(
            env,
            "aggregate",
            "--bootstrap-servers",
            env.bootstrapServers(),
            "--topic",
            source,
            "--summaries-topic",
            output,
            "--dead-letter-topic",
            BenchTopics.unique("bench-b1-fresh-dead"),
            "--application-id",
            BenchTopics.unique("bench-b1-fresh"),
            "--max-clock-skew",
            Recompute.LOADED_LATE_SKEW);
    Path log = dir.resolve("aggregate.log");
    List<String> values = new ArrayList<>();
    long firstMs = Long.MAX_VALUE;
    long lastMs = Long.MIN_VALUE;
    try (KafkaConsumer<byte[], byte[]> consumer = BenchTopics.consumer(env.bootstrapServers())) {
      BenchTopics.assignFromStart(consumer, output);
      long startMs = System.currentTimeMillis();
      Process p =
          new ProcessBuilder(command)
              .redirectOutput(dir.resolve("aggregate.out").toFile())
              .redirectError(log.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
              .start();
      try {
        long deadlineNs = System.nanoTime() + TIMEOUT.toNanos();
        while (values.size() < expected) {
          Recompute.check(p.isAlive(), "tpot aggregate stopped: " + String.join("\n", tail(log)));
          Recompute.check(
              System.nanoTime() < deadlineNs,
              "tpot aggregate wrote "
                  + values.size()
                  + " of "
                  + expected
                  + " summaries in "
                  + TIMEOUT);
          for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
            values.add(new String(r.value(), StandardCharsets.UTF_8));
            firstMs = Math.min(firstMs, r.timestamp());
            lastMs = Math.max(lastMs, r.timestamp());
          }
        }
      } finally {
        p.destroy();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
      return new Appended(values, startMs, firstMs, lastMs);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start tpot aggregate", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** One partition whose records carry the broker's append time, the clock of the rate. */
  private static void createWithAppendTimes(String bootstrap, String topic) {
    KafkaConnection kafka = KafkaConnection.of(bootstrap);
    try (Admin admin = Admin.create(kafka.adminProperties())) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(topic, Optional.of(1), Optional.empty())
                      .configs(
                          Map.of(
                              TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG,
                              "LogAppendTime",
                              TopicConfig.RETENTION_MS_CONFIG,
                              "-1"))))
          .all()
          .get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot create " + topic + ": " + e.getMessage(), e);
    }
  }

  private static List<String> tail(Path log) {
    List<String> lines = Recompute.readLines(log);
    return lines.subList(Math.max(0, lines.size() - 20), lines.size());
  }
}

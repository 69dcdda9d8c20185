package io.tpotstream.bench.recompute;

import io.tpotstream.aggregator.offline.OfflineStats;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.app.cli.Tpot;
import io.tpotstream.bench.BenchEnv;
import io.tpotstream.bench.BenchReport;
import io.tpotstream.bench.workload.BenchTopics;
import io.tpotstream.bench.workload.SyntheticWorkload;
import io.tpotstream.bench.workload.WorkloadShape;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.jvm.JavaLauncher;
import io.tpotstream.common.jvm.JvmOptions;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;

/**
 * B5 "recompute": {@code tpot export}, {@code tpot replay} and {@code tpot stats} on the same
 * events, timed as processes from start to exit, beside kcat writing those events into a topic and
 * kcat reading the topic to a file, in one run. The events are a synthetic producer's, with the
 * real producer's identifiers and fields; kcat loads them (keyed as the Java client partitions
 * them, heartbeats to every partition). Every exported file is checked (record count), every replay
 * (records on the target) and every recomputation (the summaries equal, byte for byte, those the
 * aggregator's logic gives on the events as generated).
 */
public final class Recompute {
  static final int PARTITIONS = 3;
  static final List<String> FORMATS = List.of(".jsonl", ".jsonl.gz", ".jsonl.zst", ".jsonl.lz4");
  private static final long TIMEOUT_S = 900;
  private static final String RUN_ID = "run-20261202-115150-1a2b";
  private static final String PRODUCER_ID = "tpot-7f3a9c-4242-9f1c";
  private static final Pattern EXPORTED = Pattern.compile("export: done, (\\d+) records");

  /** The figures of one run, for the smoke test. */
  record Outcome(
      long records,
      double kcatWritePerS,
      double kcatReadPerS,
      Map<String, Long> exported,
      Map<String, Long> replayed,
      Map<String, Boolean> statsEqual,
      int summaries) {}

  private Recompute() {}

  /**
   * Writes B5's events for kcat into a directory, for runs by hand: {@code java -cp
   * bench/target/tpot-bench.jar io.tpotstream.bench.recompute.Recompute DIR [EVENTS]}; then {@code
   * kcat -P -b B -t TOPIC -p N -K $'\\t' -z lz4 -l DIR/events-pN.tsv} for each partition N (the
   * topic with 3 partitions), and the reference summaries are in {@code DIR/reference.json}.
   */
  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args[0]);
    Files.createDirectories(dir);
    long target = args.length > 1 ? Long.parseLong(args[1]) : 10_000_000L;
    Generated g = generate(target, dir);
    Files.write(dir.resolve("reference.json"), g.reference());
    System.out.printf(
        Locale.ROOT,
        "%,d records (%,d heartbeat copies, %.0f bytes/event) in %s/events-p{0..%d}.tsv;"
            + " %d reference summaries in reference.json%n",
        g.records(),
        g.heartbeatCopies(),
        g.valueBytes() / (double) g.records(),
        dir,
        PARTITIONS - 1,
        g.reference().size());
  }

  public static void run(BenchEnv env, BenchReport report) {
    // ten million events in a full run, so that start-up does not dominate what is compared
    run(env, report, env.pick(10_000_000L, 200_000L), FORMATS);
  }

  static Outcome run(BenchEnv env, BenchReport report, long target, List<String> formats) {
    report.section(
        "B5", "recompute: export, replay, stats (" + BenchReport.count(target) + " events)");
    Kcat.path(); // says how to install kcat before the events are generated
    Path dir = env.workDir().resolve("b5-" + Long.toHexString(System.nanoTime()));
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Generated events = generate(target, dir);
    report.note(
        String.format(
            Locale.ROOT,
            "%s records (%s heartbeat copies), %.0f bytes/event of JSON, %d partitions; %d"
                + " reference summaries",
            BenchReport.count(events.records()),
            BenchReport.count(events.heartbeatCopies()),
            events.valueBytes() / (double) events.records(),
            PARTITIONS,
            events.reference().size()));

    String source = BenchTopics.unique("bench-b5-events");
    Timed.Run kcatWrite = loadWithKcat(env, events, source, dir);
    report.headline(
        "kcat -P writing them (3 partitions at once, lz4)", rate(kcatWrite, events.records()));

    Path kcatFile = dir.resolve("kcat.jsonl");
    Timed.Run kcatRead =
        Timed.run(
            Kcat.readAll(env.bootstrapServers(), source),
            kcatFile,
            dir.resolve("kcat-consume.log"),
            TIMEOUT_S);
    long kcatLines = lines(kcatFile);
    check(kcatLines == events.records(), "kcat read " + kcatLines + " of " + events.records());
    report.headline("kcat -C reading the topic to a file", rate(kcatRead, events.records()));

    java.util.LinkedHashMap<String, Long> exported = new java.util.LinkedHashMap<>();
    java.util.LinkedHashMap<String, Long> replayed = new java.util.LinkedHashMap<>();
    java.util.LinkedHashMap<String, Boolean> equal = new java.util.LinkedHashMap<>();
    List<Path> files = new ArrayList<>();
    for (String format : formats) {
      Path file = dir.resolve("export" + format);
      Path log = dir.resolve("export" + format + ".log");
      Timed.Run run =
          Timed.run(
              tpot(
                  env,
                  "export",
                  "--bootstrap-servers",
                  env.bootstrapServers(),
                  "--topic",
                  source,
                  "--file",
                  file.toString()),
              dir.resolve("export" + format + ".out"),
              log,
              TIMEOUT_S);
      long count = exportedCount(log);
      exported.put(format, count);
      check(count == events.records(), "export" + format + " wrote " + count + " records");
      files.add(file);
      report.headline(
          "tpot export -> " + format,
          rate(run, events.records(), kcatRead, "reading") + ", " + BenchReport.mb(size(file)));
    }
    for (int i = 0; i < formats.size(); i++) {
      String format = formats.get(i);
      Path out = dir.resolve("stats" + format + ".json");
      Timed.Run run =
          Timed.run(
              tpot(
                  env,
                  "stats",
                  "--file",
                  files.get(i).toString(),
                  "--format",
                  "json",
                  "--max-clock-skew",
                  LOADED_LATE_SKEW),
              out,
              dir.resolve("stats" + format + ".log"),
              TIMEOUT_S);
      boolean same = readLines(out).equals(events.reference());
      equal.put(format, same);
      report.headline(
          "tpot stats <- " + format,
          rate(run, events.records(), kcatRead, "reading")
              + "; summaries "
              + (same ? "identical to the reference" : "DIFFER from the reference"));
    }
    for (int i = 0; i < formats.size(); i++) {
      String format = formats.get(i);
      String target2 = BenchTopics.unique("bench-b5-replayed");
      Timed.Run run =
          Timed.run(
              tpot(
                  env,
                  "replay",
                  "--bootstrap-servers",
                  env.bootstrapServers(),
                  "--file",
                  files.get(i).toString(),
                  "--topic",
                  target2,
                  "--partitions",
                  Integer.toString(PARTITIONS)),
              dir.resolve("replay" + format + ".out"),
              dir.resolve("replay" + format + ".log"),
              TIMEOUT_S);
      long onTarget = recordsIn(env.bootstrapServers(), target2);
      replayed.put(format, onTarget);
      check(
          onTarget == events.records(),
          "replay" + format + " left " + onTarget + " of " + events.records() + " records");
      report.headline(
          "tpot replay <- " + format, rate(run, events.records(), kcatWrite, "writing"));
    }
    return new Outcome(
        events.records(),
        kcatWrite.perSecond(events.records()),
        kcatRead.perSecond(events.records()),
        exported,
        replayed,
        equal,
        events.reference().size());
  }

  /**
   * Loads the generated events into {@code topic} (created with {@link #PARTITIONS} partitions)
   * with kcat, one process per partition at once, and checks that every record arrived.
   */
  static Timed.Run loadWithKcat(BenchEnv env, Generated events, String topic, Path dir) {
    String kcat = Kcat.path();
    BenchTopics.create(env.bootstrapServers(), topic, PARTITIONS);
    List<List<String>> loads = new ArrayList<>();
    List<Path> outs = new ArrayList<>();
    List<Path> logs = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      loads.add(
          List.of(
              kcat,
              "-P",
              "-b",
              env.bootstrapServers(),
              "-t",
              topic,
              "-p",
              Integer.toString(p),
              "-K",
              "\t",
              "-z",
              "lz4",
              "-l",
              events.partitionFiles().get(p).toString()));
      outs.add(dir.resolve("kcat-produce-" + p + ".out"));
      logs.add(dir.resolve("kcat-produce-" + p + ".log"));
    }
    Timed.Run run = Timed.run(loads, outs, logs, TIMEOUT_S);
    long loaded = recordsIn(env.bootstrapServers(), topic);
    check(loaded == events.records(), "kcat loaded " + loaded + " of " + events.records());
    return run;
  }

  /**
   * The generated events: kcat's input per partition, the reference summaries, and the workload's
   * shape (which records fall after the first window).
   */
  record Generated(
      List<Path> partitionFiles,
      long records,
      long heartbeatCopies,
      long valueBytes,
      List<String> reference,
      SyntheticWorkload.Summary workload) {}

  /**
   * Generates about {@code target} events into one kcat input file per partition ({@code key TAB
   * value} lines) and computes the reference summaries from the very same bytes.
   */
  static Generated generate(long target, Path dir) {
    long baseTsMs = (System.currentTimeMillis() / 3_600_000L - 48) * 3_600_000L;
    SyntheticWorkload workload =
        new SyntheticWorkload(
            WorkloadShape.chat(target, PARTITIONS), StageSettings.DEFAULT_WINDOW, baseTsMs);
    List<Path> files = new ArrayList<>();
    List<OutputStream> outs = new ArrayList<>();
    OfflineStats.Session reference =
        new OfflineStats.Session(
            StageSettings.defaults(),
            problem -> {
              throw new IllegalStateException("reference: " + problem);
            });
    long[] counts = new long[3]; // records, heartbeat copies, value bytes
    SyntheticWorkload.Summary[] shape = {null};
    try {
      for (int p = 0; p < PARTITIONS; p++) {
        Path file = dir.resolve("events-p" + p + ".tsv");
        files.add(file);
        outs.add(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16));
      }
      shape[0] =
          workload.generate(
              (event, partition) -> {
                String json =
                    realistic(TokenEventCodec.encodeToString(event.withSource("producer")));
                byte[] value = json.getBytes(StandardCharsets.UTF_8);
                TokenEvent real = TokenEventCodec.decode(value);
                String key = partition < 0 ? real.requestId() : real.producerId();
                byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
                int p =
                    partition >= 0
                        ? partition
                        : Utils.toPositive(Utils.murmur2(keyBytes)) % PARTITIONS;
                try {
                  OutputStream out = outs.get(p);
                  out.write(keyBytes);
                  out.write('\t');
                  out.write(value);
                  out.write('\n');
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
                counts[0]++;
                counts[2] += value.length;
                if (partition >= 0) {
                  counts[1]++;
                }
                if (partition <= 0) {
                  reference.add(real);
                }
              });
      for (OutputStream out : outs) {
        out.close();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the events for kcat", e);
    }
    List<String> lines = new ArrayList<>();
    for (WindowSummary s : reference.finish()) {
      lines.add(WindowSummaryCodec.encodeToString(s));
    }
    return new Generated(files, counts[0], counts[1], counts[2], lines, shape[0]);
  }

  /** The real producer's identifiers: a run id with its time and a producer id with its host. */
  private static String realistic(String json) {
    return json.replace("\"runId\":\"bench\"", "\"runId\":\"" + RUN_ID + "\"")
        .replace("\"requestId\":\"bench-", "\"requestId\":\"" + RUN_ID + "-")
        .replace("\"producerId\":\"bench-producer-1\"", "\"producerId\":\"" + PRODUCER_ID + "\"");
  }

  /**
   * A {@code tpot} command line as a user runs it: through {@code ./tpot} when the benchmarks were
   * started by it (the launcher gives the command its JVM settings; {@link
   * BenchEnv#childJvmOptions()} go in {@code TPOT_JAVA_OPTS}); else (the smoke tests, which must
   * not build or train anything) a JVM on this class path with the settings the launcher gives that
   * command.
   */
  /**
   * kcat keeps no timestamps: the loaded records carry the broker's time at the load, 48 h after
   * their events, so every watermark is that far behind its record's time. As a user reading events
   * loaded this way must (or load them with {@code tpot replay}, which keeps their times), the
   * aggregate and stats allow that skew.
   */
  static final String LOADED_LATE_SKEW = "72h";

  static List<String> tpot(BenchEnv env, String... args) {
    String launcher = System.getProperty("tpot.launcher");
    if (launcher != null) {
      List<String> command = new ArrayList<>();
      command.add("env");
      command.add("TPOT_JAVA_OPTS=" + String.join(" ", env.childJvmOptions()));
      command.add(launcher);
      command.addAll(List.of(args));
      return command;
    }
    List<String> jvm = new ArrayList<>(JvmOptions.of(args[0]));
    jvm.addAll(env.childJvmOptions());
    return JavaLauncher.builder(List.of(), Tpot.class, jvm, List.of(args)).command();
  }

  private static long recordsIn(String bootstrap, String topic) {
    try (KafkaConsumer<byte[], byte[]> consumer = BenchTopics.consumer(bootstrap)) {
      List<TopicPartition> partitions = new ArrayList<>();
      consumer
          .partitionsFor(topic)
          .forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
      return consumer.endOffsets(partitions).values().stream().mapToLong(Long::longValue).sum();
    }
  }

  private static long exportedCount(Path log) {
    Matcher m = EXPORTED.matcher(String.join("\n", readLines(log)));
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  static String rate(Timed.Run run, long records) {
    return BenchReport.perSecond(run.perSecond(records), "events")
        + " ("
        + BenchReport.seconds(run.elapsedNs())
        + ")";
  }

  /** {@link #rate} and how it compares with kcat's run on the same records. */
  private static String rate(Timed.Run run, long records, Timed.Run kcat, String kcatDoing) {
    return rate(run, records)
        + String.format(
            Locale.ROOT,
            ", %.2f x kcat %s",
            run.perSecond(records) / kcat.perSecond(records),
            kcatDoing);
  }

  static void check(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException(what);
    }
  }

  static List<String> readLines(Path file) {
    try {
      return Files.readAllLines(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long lines(Path file) {
    try (var lines = Files.lines(file)) {
      return lines.count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

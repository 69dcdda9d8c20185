package io.tpotstream.bench.memory;

import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.bench.BenchEnv;
import io.tpotstream.bench.BenchReport;
import io.tpotstream.bench.jvm.ChildJvm;
import io.tpotstream.bench.workload.BenchTopics;
import io.tpotstream.bench.workload.Preloader;
import io.tpotstream.bench.workload.ProducerChurn;
import io.tpotstream.bench.workload.SummaryWatcher;
import io.tpotstream.common.Json;
import io.tpotstream.common.summary.WindowSummary;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * B4 producers: stage 1's state and the aggregator's heap while 1,000 short-lived producers come
 * and go over a simulated week ({@link ProducerChurn}: one starting every 10 minutes, each living
 * about 2 minutes, every 10th killed mid-request), grouped by a label unique to each producer so
 * that 1,000 series come and go too. The week is written in 10 slices, each preloaded as a backlog
 * (record timestamp = event {@code ts}, a week ago to an hour ago) and read by the aggregator in
 * its own JVM ({@link AggregatorProbe}) before the next is written; slices end between producers,
 * so the pause changes nothing the aggregator emits. After each slice, the first probe sample whose
 * partition clocks all passed the slice's last record gives the heap after a full GC and stage 1's
 * entries by key tag. At the end, every (series, window) pair of the input must have its summary.
 */
final class ProducerChurnMemory {
  static final Duration EVERY = Duration.ofMinutes(10);
  static final int SLICES = 10;

  private ProducerChurnMemory() {}

  /** A probe sample, with the producers started (by the lowest partition clock) when it came. */
  private record Point(int producersSeen, AggregatorProbe.Sample sample) {}

  static void run(BenchEnv env, BenchReport report) throws InterruptedException {
    int producers = env.pick(1_000, 200);
    int partitions = MemoryGrowth.PARTITIONS;
    String servers = env.bootstrapServers();
    String input = BenchTopics.unique("bench-b4p-events");
    String output = BenchTopics.unique("bench-b4p-summaries");
    BenchTopics.create(servers, input, partitions);
    BenchTopics.create(servers, output, 1);
    StageSettings settings = StageSettings.defaults().withGroupBy(List.of(ProducerChurn.LABEL));
    // the whole run within the last 7 days (a segment whose first record is older rolls at once)
    long weekMs = producers * EVERY.toMillis();
    long baseTsMs =
        (System.currentTimeMillis() - Duration.ofDays(7).toMillis()) / 60_000 * 60_000
            + Duration.ofMinutes(30).toMillis();
    ProducerChurn churn =
        new ProducerChurn(
            producers,
            EVERY,
            baseTsMs,
            partitions,
            settings.windowSize(),
            settings.requestTimeout(),
            44);
    report.note(
        String.format(
            Locale.ROOT,
            "producers: %,d producers over %.1f simulated days (one every 10 min, 100-140 s each,"
                + " heartbeats every second to %d partitions, 5-8 requests of 8-12 tokens; every"
                + " 10th killed mid-request), --group-by %s (a series per producer); written in %d"
                + " slices, each read before the next",
            producers,
            weekMs / 86_400_000.0,
            partitions,
            ProducerChurn.LABEL,
            SLICES));
    long[] starts = new long[producers];
    Set<String> expected = new HashSet<>();
    Set<String> seen = new HashSet<>();
    long[] summaryTotals = new long[3]; // summaries, lateSamples, abandoned
    List<Point> all = new ArrayList<>();
    List<Point> atSlices = new ArrayList<>();
    long records = 0;
    String applicationId = BenchTopics.unique("bench-b4p");
    List<String> args =
        List.of(
            servers,
            input,
            output,
            BenchTopics.unique("bench-b4p-dead"),
            applicationId,
            Integer.toString(partitions),
            "1000",
            ProducerChurn.LABEL);
    long startNs = System.nanoTime();
    try (ChildJvm child =
            ChildJvm.start(
                AggregatorProbe.class,
                env.childJvmOptions(),
                args,
                env.workDir().resolve("b4-producers-aggregator.log"));
        SummaryWatcher watcher = new SummaryWatcher(servers, output)) {
      for (int slice = 0; slice < SLICES; slice++) {
        int from = slice * producers / SLICES;
        int to = (slice + 1) * producers / SLICES;
        List<ProducerChurn.ProducerLog> logs = new ArrayList<>();
        for (int i = from; i < to; i++) {
          ProducerChurn.ProducerLog log = churn.producer(i);
          starts[i] = log.startMs();
          logs.add(log);
        }
        expected.addAll(churn.seriesWindows(logs));
        long sliceEndMs = logs.get(logs.size() - 1).lastTsMs();
        records +=
            Preloader.publish(
                    servers,
                    input,
                    sink -> {
                      for (ProducerChurn.ProducerLog log : logs) {
                        for (ProducerChurn.Sent s : log.records()) {
                          sink.accept(s.event(), s.partition());
                        }
                      }
                    })
                .records();
        Point point = null;
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (point == null) {
          if (System.nanoTime() > deadline) {
            throw child.failure("slice " + (slice + 1) + " not read within 5 minutes");
          }
          readSummaries(watcher, seen, summaryTotals);
          for (Point p : drain(child, starts, partitions)) {
            all.add(p);
            if (point == null && p.sample().lowestClockMs(partitions) >= sliceEndMs) {
              point = p;
            }
          }
          if (!child.isAlive()) {
            throw child.failure("the aggregator exited");
          }
        }
        atSlices.add(point);
      }
      // every window closes: the last one once the idle partitions' clocks pass its end
      long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
      while (!seen.containsAll(expected) && System.nanoTime() < deadline) {
        readSummaries(watcher, seen, summaryTotals);
        all.addAll(drain(child, starts, partitions));
      }
      // one more sample, taken after the last summary
      int before = all.size();
      long sampleDeadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (all.size() == before && System.nanoTime() < sampleDeadline) {
        readSummaries(watcher, seen, summaryTotals);
        all.addAll(drain(child, starts, partitions));
      }
      child.stop(Duration.ofSeconds(30));
    }
    long elapsedNs = System.nanoTime() - startNs;
    report.note(
        "producers: "
            + BenchReport.count(records)
            + " records in "
            + BenchReport.seconds(elapsedNs)
            + " (writing, reading, sampling every second: "
            + all.size()
            + " samples)");
    report.figure(
        "producers seen | heap after GC | stage 1: p | n | r | w | h | all | stage 2", "(entries)");
    for (Point p : atSlices) {
      report.figure("  " + BenchReport.count(p.producersSeen()), row(p.sample()));
    }
    Point peak = all.get(0);
    Point peakEntries = all.get(0);
    for (Point p : all) {
      if (p.sample().heapBytes() > peak.sample().heapBytes()) {
        peak = p;
      }
      if (stage1(p.sample()) > stage1(peakEntries.sample())) {
        peakEntries = p;
      }
    }
    Point end = all.get(all.size() - 1);
    report.figure(
        "  peak heap (at " + BenchReport.count(peak.producersSeen()) + ")", row(peak.sample()));
    report.figure(
        "  peak stage 1 (at " + BenchReport.count(peakEntries.producersSeen()) + ")",
        row(peakEntries.sample()));
    report.figure("  end (every window closed)", row(end.sample()));
    Set<String> missing = new HashSet<>(expected);
    missing.removeAll(seen);
    Set<String> unexpected = new HashSet<>(seen);
    unexpected.removeAll(expected);
    report.figure(
        "summaries (series x window)",
        String.format(
            Locale.ROOT,
            "%,d read, %,d expected, %,d missing, %,d unexpected; lateSamples %,d; abandoned %,d",
            summaryTotals[0],
            expected.size(),
            missing.size(),
            unexpected.size(),
            summaryTotals[1],
            summaryTotals[2]));
    if (!missing.isEmpty()) {
      report.note("missing, e.g.: " + missing.stream().sorted().limit(5).toList());
    }
    if (!unexpected.isEmpty()) {
      report.note("unexpected, e.g.: " + unexpected.stream().sorted().limit(5).toList());
    }
    long[] p = range(atSlices, 'p');
    long[] n = range(atSlices, 'n');
    long minHeap = atSlices.stream().mapToLong(x -> x.sample().heapBytes()).min().orElse(0);
    long maxHeap = atSlices.stream().mapToLong(x -> x.sample().heapBytes()).max().orElse(0);
    report.headline(
        "stage 1 over " + BenchReport.count(producers) + " producers coming and going",
        String.format(
            Locale.ROOT,
            "after each tenth: producers (p) %d-%d, series (n) %d-%d entries, heap after GC"
                + " %s-%s; peak %s and %,d stage 1 entries; %s",
            p[0],
            p[1],
            n[0],
            n[1],
            BenchReport.mb(minHeap),
            BenchReport.mb(maxHeap),
            BenchReport.mb(peak.sample().heapBytes()),
            stage1(peakEntries.sample()),
            missing.isEmpty() && unexpected.isEmpty()
                ? "every window closed (" + BenchReport.count(expected.size()) + " summaries)"
                : missing.size() + " summaries missing, " + unexpected.size() + " unexpected"));
  }

  private static String row(AggregatorProbe.Sample s) {
    return String.format(
        Locale.ROOT,
        "%s | %d | %d | %d | %d | %d | %d | %d",
        BenchReport.mb(s.heapBytes()),
        s.stage1('p'),
        s.stage1('n'),
        s.stage1('r'),
        s.stage1('w'),
        s.stage1('h'),
        stage1(s),
        s.entries().getOrDefault(AggregatorProbe.STORES.get(1), -1L));
  }

  private static long stage1(AggregatorProbe.Sample s) {
    return s.stage1ByTag() == null
        ? 0
        : s.stage1ByTag().values().stream().mapToLong(Long::longValue).sum();
  }

  private static long[] range(List<Point> points, char tag) {
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (Point x : points) {
      min = Math.min(min, x.sample().stage1(tag));
      max = Math.max(max, x.sample().stage1(tag));
    }
    return new long[] {min, max};
  }

  private static void readSummaries(SummaryWatcher watcher, Set<String> seen, long[] totals) {
    for (WindowSummary s : watcher.poll(Duration.ofMillis(100))) {
      totals[0]++;
      totals[1] += s.lateSamples();
      totals[2] += s.requests() == null ? 0 : s.requests().abandoned();
      seen.add(ProducerChurn.key(s.series(), s.windowStartMs()));
    }
  }

  private static List<Point> drain(ChildJvm child, long[] starts, int partitions)
      throws InterruptedException {
    List<Point> points = new ArrayList<>();
    ChildJvm.Line line;
    while ((line = child.next(Duration.ZERO)) != null) {
      if (!line.kind().equals("sample")) {
        continue;
      }
      AggregatorProbe.Sample sample;
      try {
        sample = Json.MAPPER.treeToValue(line.json(), AggregatorProbe.Sample.class);
      } catch (IOException e) {
        throw new IllegalStateException("unreadable sample: " + e.getMessage(), e);
      }
      long clock = sample.lowestClockMs(partitions);
      int seen = 0;
      while (seen < starts.length && starts[seen] != 0 && starts[seen] <= clock) {
        seen++;
      }
      points.add(new Point(seen, sample));
    }
    return points;
  }
}

package io.tpotstream.app.run;

import io.tpotstream.common.engine.EngineView;
import io.tpotstream.common.kafka.PlainReader;
import io.tpotstream.common.progress.Progress;
import io.tpotstream.common.stats.LatencySummary;
import io.tpotstream.common.summary.ClientTouch;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import io.tpotstream.sink.record.WholeRunTable;
import io.tpotstream.sink.report.ReportModel;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Follows the run's summaries topic while it goes on: the latest window per series (p50, p99,
 * p99.9, errors, the producer's own worst event-loop lag and pause, the gaps that lag touched, and
 * CLIENT SUSPECT with the percentiles without that lag when it moved a reported percentile, the
 * engine's TPOT p99 and the time added outside it when the producer scraped the engine), and per
 * model the requests accounted for, which tells the run when every request it made is in a closed
 * window. Shown on stderr as the progress of every command is ({@link Progress.Mode}): redrawn in
 * place on a terminal, a line per window elsewhere, nothing with {@code --quiet} (it still follows
 * the summaries: the run needs its counts).
 */
final class LiveView implements AutoCloseable {
  private static final DateTimeFormatter CLOCK =
      DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);

  private final Properties client;
  private final String topic;
  private final PrintStream out;
  private final Progress.Mode mode;
  private final AtomicBoolean stopped = new AtomicBoolean();
  private final Map<String, WindowSummary> latest = new TreeMap<>();
  private final Map<String, Long> finishedPerModel = new HashMap<>();
  private final Map<String, Long> tpotPerModel = new HashMap<>();
  private long summaries;
  private int linesDrawn;
  private String progress = "";
  private Thread thread;

  LiveView(Properties client, String topic, PrintStream out, Progress.Mode mode) {
    this.client = client;
    this.topic = topic;
    this.out = out;
    this.mode = mode;
  }

  void start() {
    thread = new Thread(this::follow, "live-view");
    thread.setDaemon(true);
    thread.start();
  }

  /** Summaries of this run seen so far. */
  synchronized long summaries() {
    return summaries;
  }

  /** Completed plus failed requests of {@code model} counted in the summaries so far. */
  synchronized long finished(String model) {
    return finishedPerModel.getOrDefault(model, 0L);
  }

  /** TPOT samples of {@code model} counted in the summaries so far. */
  synchronized long tpotSamples(String model) {
    return tpotPerModel.getOrDefault(model, 0L);
  }

  /** The producer's progress line, shown under the table. */
  synchronized void progress(String line) {
    progress = line;
    if (mode == Progress.Mode.LIVE) {
      redraw();
    } else if (mode == Progress.Mode.PLAIN) {
      out.println(line);
    }
  }

  private void follow() {
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(PlainReader.settings(client))) {
      List<TopicPartition> partitions = List.of();
      while (!stopped.get() && partitions.isEmpty()) {
        partitions =
            consumer.partitionsFor(topic, Duration.ofSeconds(5)).stream()
                .map(i -> new TopicPartition(i.topic(), i.partition()))
                .toList();
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      while (!stopped.get()) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          WindowSummary s;
          try {
            s = WindowSummaryCodec.decode(r.value());
          } catch (IllegalArgumentException e) {
            continue;
          }
          add(s);
        }
      }
    } catch (RuntimeException e) {
      if (!stopped.get()) {
        out.println("live view stopped: " + e.getMessage());
      }
    }
  }

  private synchronized void add(WindowSummary s) {
    summaries++;
    latest.put(s.series(), s);
    finishedPerModel.merge(s.model(), s.requests().completed() + s.requests().failed(), Long::sum);
    tpotPerModel.merge(s.model(), s.tpot().count(), Long::sum);
    if (mode == Progress.Mode.LIVE) {
      redraw();
    } else if (mode == Progress.Mode.PLAIN) {
      out.println(line(s));
    }
  }

  private void redraw() {
    StringBuilder frame = new StringBuilder();
    if (linesDrawn > 0) {
      frame.append("\033[").append(linesDrawn).append("F");
    }
    int lines = 0;
    for (WindowSummary s : latest.values()) {
      frame.append("\033[2K").append(line(s)).append('\n');
      lines++;
    }
    frame.append("\033[2K").append(progress).append('\n');
    lines++;
    out.print(frame);
    out.flush();
    linesDrawn = lines;
  }

  static String line(WindowSummary s) {
    LatencySummary t = s.tpot();
    StringBuilder line =
        new StringBuilder()
            .append(CLOCK.format(Instant.ofEpochMilli(s.windowStartMs())))
            .append('–')
            .append(CLOCK.format(Instant.ofEpochMilli(s.windowEndMs())))
            .append("  ")
            .append(String.format("%-10s", s.series()));
    if (!ReportModel.measured(s) && s.warmupRequests() > 0) {
      // the report leaves such a window out; here it says why the first windows hold nothing
      return line.append(" warm-up: ")
          .append(s.warmupRequests())
          .append(s.warmupRequests() == 1 ? " request" : " requests")
          .append(", left out of every statistic")
          .toString();
    }
    line.append(" TPOT p50 ")
        .append(ms(t.p50Ms()))
        .append(" p99 ")
        .append(ms(t.p99Ms()))
        .append(" p99.9 ")
        .append(ms(t.p999Ms()))
        .append(" ms (")
        .append(t.count())
        .append(" gaps), TTFT p50 ")
        .append(ms(s.ttft().p50Ms()))
        .append(" ms, errors ")
        .append(s.requests().failed());
    if (!s.requests().errors().isEmpty()) {
      line.append(' ').append(s.requests().errors());
    }
    if (s.clientLagMaxMs() != null || s.clientPauseMaxMs() != null) {
      line.append(", client lag max ")
          .append(ms(s.clientLagMaxMs()))
          .append(" ms, pause max ")
          .append(ms(s.clientPauseMaxMs()))
          .append(" ms");
    }
    if (s.tpot().count() > 0 && s.coalescedGaps() > 0) {
      line.append(", ").append(s.coalescedGaps()).append(" coalesced gaps");
    }
    ClientTouch touch = s.clientTouched();
    if (touch != null && touch.gaps() > 0) {
      line.append(", client lag touched ")
          .append(touch.gaps())
          .append(touch.gaps() == 1 ? " gap (" : " gaps (")
          .append(touch.tailShare().movePointRight(2).stripTrailingZeros().toPlainString())
          .append("% of the tail ≥ p99)");
    }
    if (Boolean.TRUE.equals(s.clientSuspect())) {
      line.append("  CLIENT SUSPECT (without the client's lag p99 ")
          .append(ms(touch.tpotWithout().p99Ms()))
          .append(" p99.9 ")
          .append(ms(touch.tpotWithout().p999Ms()))
          .append(" ms; moved: ")
          .append(String.join(", ", touch.moved()))
          .append(')');
    }
    engine(line, s.engine());
    if (s.slo() != null) {
      if (s.slo().goodput() != null) {
        line.append(", goodput ")
            .append(s.slo().goodput().movePointRight(2).stripTrailingZeros().toPlainString())
            .append('%');
      }
      if (!s.slo().met()) {
        line.append("  << SLO MISSED: ").append(s.slo().missedText());
      }
    }
    return line.toString();
  }

  /**
   * The engine's view of the window, when the producer scraped one: its TPOT p99 bucket and the
   * time added outside the engine at TPOT p99 (both intervals, ms), and its failed scrapes; only
   * the failures when no scrape of the window succeeded.
   */
  private static void engine(StringBuilder line, EngineView e) {
    if (e == null || (e.scrapes() == 0 && e.failedScrapes() == 0)) {
      return;
    }
    String failed =
        e.failedScrapes() + (e.failedScrapes() == 1 ? " scrape failed" : " scrapes failed");
    if (e.scrapes() == 0) {
      line.append(" · engine: ").append(failed);
      return;
    }
    EngineView.Interval engine = e.tpot() == null ? null : e.tpot().p99Ms();
    line.append(" · engine TPOT p99 ")
        .append(engine == null ? "-" : WholeRunTable.interval(engine) + " ms");
    EngineView.Added outside = e.outside() == null ? null : e.outside().tpot();
    if (outside != null && outside.p99Ms() != null) {
      line.append(", outside ").append(WholeRunTable.interval(outside.p99Ms())).append(" ms");
    }
    if (e.failedScrapes() > 0) {
      line.append(", ").append(failed);
    }
  }

  static String ms(BigDecimal value) {
    return WholeRunTable.ms(value);
  }

  @Override
  public void close() throws InterruptedException {
    stopped.set(true);
    if (thread != null) {
      thread.join(5_000);
    }
  }
}

package io.tpotstream.producer.result;

import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.producer.ProducerState;
import io.tpotstream.producer.RunResult;
import io.tpotstream.producer.config.ConfigDurations;
import io.tpotstream.producer.http.EndpointBackoff;
import io.tpotstream.producer.load.LoadRunner;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.function.Function;

/**
 * The producer's printed output: the seed's table per model (samples, mean, median, P90, P99,
 * P99.9, P99.99, max of TPOT in ms) plus TTFT median/P99 and the error rate, and the progress line.
 */
public final class ResultTable {
  /** The seed's rule: above this error rate a batch's percentiles are not trustworthy. */
  static final BigDecimal TRUSTWORTHY_ERROR_RATE = new BigDecimal("0.05");

  private ResultTable() {}

  /**
   * The end-of-run table, one column per model (one row per stage and model for a sweep), then
   * notes.
   */
  public static String format(RunResult result) {
    List<ModelResult> models = result.models();
    if (models.stream().anyMatch(m -> m.stage() != null)) {
      return stages(result) + notes(result);
    }
    List<String[]> rows = new ArrayList<>();
    rows.add(row("samples", models, m -> Long.toString(m.tpot().count())));
    rows.add(row("mean", models, m -> ms(m.tpot(), m.tpot().meanMicros())));
    rows.add(row("median", models, m -> pct(m.tpot(), 50)));
    rows.add(row("P90", models, m -> pct(m.tpot(), 90)));
    rows.add(row("P99", models, m -> pct(m.tpot(), 99)));
    rows.add(row("P99.9", models, m -> pct(m.tpot(), 99.9)));
    rows.add(row("P99.99", models, m -> pct(m.tpot(), 99.99)));
    rows.add(row("max", models, m -> ms(m.tpot(), m.tpot().maxMicros())));
    rows.add(row("TTFT median", models, m -> pct(m.ttft(), 50)));
    rows.add(row("TTFT P99", models, m -> pct(m.ttft(), 99)));
    rows.add(row("requests", models, m -> Long.toString(m.started())));
    rows.add(row("completed", models, m -> Long.toString(m.completed())));
    rows.add(row("failed", models, m -> Long.toString(m.failed())));
    rows.add(row("error rate", models, m -> percent(m.errorRate())));
    rows.add(row("output tokens", models, m -> Long.toString(m.outputTokens())));
    if (models.stream().anyMatch(m -> m.asked() > 0)) {
      rows.add(row("ended short", models, m -> Long.toString(m.endedShort())));
    }

    int labelWidth = rows.stream().mapToInt(r -> r[0].length()).max().orElse(0);
    int[] widths = new int[models.size()];
    for (int c = 0; c < models.size(); c++) {
      widths[c] = Math.max(10, models.get(c).model().length());
      for (String[] r : rows) {
        widths[c] = Math.max(widths[c], r[c + 1].length());
      }
    }
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "TPOT per model in ms (run %s, %s%s)%n",
            result.runId(),
            seconds(result.elapsed().toNanos()),
            result.stoppedEarly() ? ", stopped early" : ""));
    out.append(" ".repeat(labelWidth));
    for (int c = 0; c < models.size(); c++) {
      out.append("  ").append(pad(models.get(c).model(), widths[c]));
    }
    out.append('\n');
    for (String[] r : rows) {
      out.append(r[0]).append(" ".repeat(labelWidth - r[0].length()));
      for (int c = 0; c < models.size(); c++) {
        out.append("  ").append(pad(r[c + 1], widths[c]));
      }
      out.append('\n');
    }
    return out + notes(result);
  }

  /** A sweep: one row per stage and model, in the order the stages ran. */
  private static String stages(RunResult result) {
    List<String> header =
        List.of(
            "stage",
            "model",
            "samples",
            "median",
            "P90",
            "P99",
            "P99.9",
            "max",
            "TTFT p50",
            "TTFT P99",
            "requests",
            "failed",
            "error rate");
    List<String[]> rows = new ArrayList<>();
    rows.add(header.toArray(String[]::new));
    for (ModelResult m : result.models()) {
      rows.add(
          new String[] {
            m.stage(),
            m.model(),
            Long.toString(m.tpot().count()),
            pct(m.tpot(), 50),
            pct(m.tpot(), 90),
            pct(m.tpot(), 99),
            pct(m.tpot(), 99.9),
            ms(m.tpot(), m.tpot().maxMicros()),
            pct(m.ttft(), 50),
            pct(m.ttft(), 99),
            Long.toString(m.started()),
            Long.toString(m.failed()),
            percent(m.errorRate())
          });
    }
    int[] widths = new int[header.size()];
    for (String[] r : rows) {
      for (int c = 0; c < r.length; c++) {
        widths[c] = Math.max(widths[c], r[c].length());
      }
    }
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "TPOT per stage in ms, one row per stage and model (run %s, %s%s)%n",
            result.runId(),
            seconds(result.elapsed().toNanos()),
            result.stoppedEarly() ? ", stopped early" : ""));
    for (String[] r : rows) {
      for (int c = 0; c < r.length; c++) {
        out.append(c == 0 ? "" : "  ")
            .append(c < 2 ? r[c] + " ".repeat(widths[c] - r[c].length()) : pad(r[c], widths[c]));
      }
      out.append('\n');
    }
    return out.toString();
  }

  private static String notes(RunResult result) {
    StringBuilder out = new StringBuilder();
    for (ModelResult m : result.models()) {
      String who = m.stage() == null ? m.model() : m.model() + " at " + m.stage();
      if (!m.errors().isEmpty()) {
        out.append("errors ").append(who).append(": ").append(joined(m.errors())).append('\n');
      }
      if (m.tooShort() > 0) {
        out.append(
            String.format(
                Locale.ROOT,
                "%s: %d complete response(s) had fewer than 2 token chunks (no TPOT sample)%n",
                who,
                m.tooShort()));
      }
      if (m.endedShort() > 0) {
        out.append(
            String.format(
                Locale.ROOT,
                "%s: %d of %d completed request(s) ended short of the output length the trace asked"
                    + " (a server that may stop early: --ignore-eos where it takes min_tokens)%n",
                who,
                m.endedShort(),
                m.completed()));
      }
      if (m.errorRate().compareTo(TRUSTWORTHY_ERROR_RATE) > 0) {
        out.append(
            String.format(
                Locale.ROOT,
                "warning: %s failed %s of its requests: above 5%% its percentiles are not"
                    + " trustworthy%n",
                who,
                percent(m.errorRate())));
      }
    }
    long heldBack = result.endpoint().heldBack();
    if (result.notSent() > heldBack) {
      out.append(
          String.format(
              Locale.ROOT,
              "%d due request(s) were not sent because the run stopped%n",
              result.notSent() - heldBack));
    }
    if (result.endpoint().backoffs() > 0) {
      out.append(backoff(result.endpoint(), false)).append('\n');
    }

    if (result.warmupRequests() > 0) {
      String how = "";
      LoadRunner.WarmupEnd end = result.warmupEnd();
      if (end != null) {
        how =
            String.format(
                Locale.ROOT,
                ", %d token chunks, in %.1f s (%s)",
                end.chunks(),
                end.after().toMillis() / 1000.0,
                (end.jitSettled()
                        ? "until the JIT had settled"
                        : "the JIT was still compiling at its limit")
                    + (end.budget() == null ? "" : "; budget " + end.budget().describe()));
      }
      out.append(
          String.format(
              Locale.ROOT,
              "warm-up (--warmup %s): %d request(s)%s%s before these, left out of this table"
                  + " (their events are marked warmup)%n",
              result.warmup(),
              result.warmupRequests(),
              "local".equals(result.warmup())
                  ? " to a simulator inside this process, none to the endpoint"
                  : "",
              how));
    }
    out.append(
        String.format(
            Locale.ROOT,
            "client: event-loop lag max %.1f ms, longest own pause %.1f ms; of %d token chunks,"
                + " %s arrived in the same socket read as the chunk before (coalesced), %s had"
                + " the event loop more than 1 ms late within their gap (touched)%n",
            result.loopLagMaxUs() / 1000.0,
            result.clientPauseMaxUs() / 1000.0,
            result.tokenChunks(),
            percent(LatencyHistogram.ratio(result.coalescedChunks(), result.tokenChunks(), 4)),
            percent(LatencyHistogram.ratio(result.touchedChunks(), result.tokenChunks(), 4))));
    if (result.outages().count() > 0) {
      out.append(
          String.format(
              Locale.ROOT,
              "Kafka was unreachable %d time(s), the longest %.1f s; up to %d events were held"
                  + " and published in order afterwards%n",
              result.outages().count(),
              result.outages().longest().toMillis() / 1000.0,
              result.outages().maxHeld()));
    }
    if (result.engine() != null) {
      out.append(result.engine().line()).append('\n');
    }
    out.append(
        String.format(
            Locale.ROOT,
            "published %d events to %s (producer %s%s)%n",
            result.eventsPublished(),
            result.topic(),
            result.producerId(),
            result.lateAtSource() > 0 ? ", " + result.lateAtSource() + " late at source" : ""));
    return out.toString();
  }

  /** What the progress line of {@code tpot produce} adds: in flight, errors by class, tokens/s. */
  public static String progressDetail(ProducerState p) {
    StringBuilder line = new StringBuilder();
    line.append(p.inFlight()).append(" in flight");
    long errors = p.errors().values().stream().mapToLong(Long::longValue).sum();
    line.append(", ").append(errors).append(errors == 1 ? " error" : " errors");
    if (errors > 0) {
      line.append(" (").append(joined(p.errors())).append(')');
    }
    line.append(String.format(Locale.ROOT, ", %.0f tokens/s", p.tokensPerSecond()));
    if (p.warmingUp()) {
      line.append(", warming up (").append(p.warmupRequests()).append(" warm-up requests)");
    }
    if (p.heldEvents() > 0) {
      line.append(", ").append(p.heldEvents()).append(" events held (Kafka unreachable)");
    }
    if (!p.stoppedModels().isEmpty()) {
      line.append(", stopped: ").append(String.join(", ", p.stoppedModels()));
    }
    if (p.endpoint().backingOff()) {
      line.append(", ").append(backoff(p.endpoint(), true));
    }
    return line.toString();
  }

  /**
   * The endpoint's backoff in words: now (the live line: the next try) or over the run (the table).
   */
  static String backoff(EndpointBackoff.State b, boolean now) {
    String tries = b.failedTries() + (b.failedTries() == 1 ? " try" : " tries");
    if (now) {
      return String.format(
          Locale.ROOT,
          "endpoint not answering (%s failed): next try in %.1f s",
          tries,
          b.waitingNs() / 1e9);
    }
    return "endpoint not answering "
        + (b.backingOff() ? "at the end (" + tries + " failed in a row)" : "at times")
        + ": backed off "
        + b.backoffs()
        + (b.backoffs() == 1 ? " time" : " times")
        + ", tries "
        + EndpointBackoff.FIRST_MS
        + " ms apart doubling to "
        + EndpointBackoff.MAX_MS / 1000
        + " s"
        + (b.heldBack() > 0 ? "; " + b.heldBack() + " due requests not sent meanwhile" : "");
  }

  /** One progress line: requests done (or time), in flight, errors by class, tokens/s. */
  public static String progressLine(ProducerState p) {
    StringBuilder line = new StringBuilder("progress: ");
    if (p.planned() >= 0) {
      line.append(p.finished()).append('/').append(p.planned()).append(" requests");
    } else {
      line.append(seconds(p.elapsed().toNanos()));
      if (p.duration() != null) {
        line.append(" / ").append(ConfigDurations.format(p.duration()));
      }
      line.append(", ").append(p.finished()).append(" requests done");
    }
    line.append(", ").append(progressDetail(p));
    return line.toString();
  }

  private static String[] row(
      String label, List<ModelResult> models, Function<ModelResult, String> f) {
    String[] r = new String[models.size() + 1];
    r[0] = label;
    for (int i = 0; i < models.size(); i++) {
      r[i + 1] = f.apply(models.get(i));
    }
    return r;
  }

  private static String pct(LatencyHistogram h, double percentile) {
    return ms(h, h.percentileMicros(percentile));
  }

  private static String ms(LatencyHistogram h, long micros) {
    return h.count() == 0 ? "-" : LatencyHistogram.ms(micros).toPlainString();
  }

  private static String percent(BigDecimal ratio) {
    return ratio.movePointRight(2).setScale(2, java.math.RoundingMode.HALF_EVEN).toPlainString()
        + "%";
  }

  private static String seconds(long nanos) {
    return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
  }

  private static String joined(SortedMap<String, Long> counts) {
    StringBuilder s = new StringBuilder();
    for (Map.Entry<String, Long> e : counts.entrySet()) {
      s.append(s.length() == 0 ? "" : ", ").append(e.getKey()).append('=').append(e.getValue());
    }
    return s.toString();
  }

  private static String pad(String s, int width) {
    return " ".repeat(Math.max(0, width - s.length())) + s;
  }
}

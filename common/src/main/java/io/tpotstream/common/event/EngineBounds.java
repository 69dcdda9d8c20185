package io.tpotstream.common.event;

import io.tpotstream.common.engine.EngineHistogram;
import io.tpotstream.common.engine.EngineSample;
import io.tpotstream.common.engine.EngineTiming;
import io.tpotstream.common.event.TokenEventBounds.Length;
import io.tpotstream.common.event.TokenEventBounds.Range;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bounds of the fields inside an engine event's {@code engine} object ({@link EngineSample} and
 * its {@link EngineHistogram}s) and an end event's {@code engineTiming} ({@link EngineTiming}),
 * declared once, as {@link TokenEventBounds} declares the top-level ones (which points here).
 * docs/schemas/token-event.v1.schema.json writes the same numbers under {@code engine}, {@code
 * engineTiming} and {@code $defs/engineHistogram}, and {@code TokenEventBoundsTest} holds them
 * equal. A field is named by its path: {@code engine.intervalMs}; {@code histogram.leUs[]} is an
 * item of any of the four histograms ({@code engine.tpot}, {@code ttft}, {@code e2e}, {@code
 * queue}).
 *
 * <p>Three rules no JSON Schema keyword can say are the readers' alone (the schema describes them):
 * a histogram's bounds strictly ascending, exactly one more count than bounds, and {@code
 * prefixHits} at most {@code prefixQueries}. Bounded values keep the window sums exact: a sum of
 * counts of 10^12 over thousands of scrapes stays far inside a long.
 */
public final class EngineBounds {
  /** An endpoint URL as printed (masked), at most. */
  public static final int MAX_ENDPOINT_CHARS = 512;

  /** A mapping's name ({@code vllm}, a mapping file's name), at most. */
  public static final int MAX_MAPPING_CHARS = 64;

  /** Why a scrape failed, one line, at most (cut to fit by the writer). */
  public static final int MAX_FAILURE_CHARS = 512;

  /** The most metric names one record says were missing. */
  public static final int MAX_MISSING = 32;

  /** A metric's name in {@code missing}, at most. */
  public static final int MAX_METRIC_NAME_CHARS = 128;

  /** The most finite bucket bounds of one histogram (vLLM's largest has about 30). */
  public static final int MAX_BUCKET_BOUNDS = 64;

  /**
   * The largest finite bucket bound in µs, a day: engines publish bounds far past the client
   * histograms' hour (vLLM's e2e goes to 7,680 s); a producer folds a larger one into +Inf.
   */
  public static final long MAX_BOUND_US = 86_400_000_000L;

  /** The largest time in an end event's {@code engineTiming}, in µs: an hour. */
  public static final long MAX_TIMING_US = TokenEventBounds.HOUR_US;

  /** Every bounded number inside {@code engine} and {@code engineTiming}, in the schema's order. */
  public static final List<Range> RANGES =
      List.of(
          new Range("engine.intervalMs", 0, 86_400_000, "a scrape interval is at most a day"),
          new Range("engine.scrapes", 0, 1, "one record holds one scrape's values, or none"),
          new Range(
              "engine.failedScrapes", 0, 1_000_000, "failures since the previous record, counted"),
          new Range("engine.resets", 0, 1_000_000, "counters found below their previous value"),
          new Range(
              "histogram.leUs[]",
              1,
              MAX_BOUND_US,
              "a bucket's upper bound in µs, up to a day (vLLM's largest is 7,680 s)"),
          new Range(
              "histogram.counts[]",
              0,
              1_000_000_000_000L,
              "observations in one bucket over one interval: a million a second for 11 days"),
          new Range("engine.running", 0, 1_000_000_000, "requests running at once"),
          new Range("engine.waiting", 0, 1_000_000_000, "requests waiting at once"),
          new Range("engine.kvCacheUsage", 0, 1, "a fraction"),
          new Range(
              "engine.prefixQueries", 0, 1_000_000_000_000_000L, "prompt tokens over an interval"),
          new Range("engine.prefixHits", 0, 1_000_000_000_000_000L, "at most prefixQueries"),
          new Range("engineTiming.queueUs", 0, MAX_TIMING_US, "µs, up to an hour"),
          new Range("engineTiming.ttftUs", 0, MAX_TIMING_US, "µs, up to an hour"),
          new Range("engineTiming.meanItlUs", 0, MAX_TIMING_US, "µs, up to an hour"),
          new Range("engineTiming.generationUs", 0, MAX_TIMING_US, "µs, up to an hour"));

  /** Every bounded text inside {@code engine}, in the schema's order. */
  public static final List<Length> LENGTHS =
      List.of(
          new Length("engine.endpoint", MAX_ENDPOINT_CHARS, "a URL as printed, masked"),
          new Length("engine.mapping", MAX_MAPPING_CHARS, "a name"),
          new Length("engine.failure", MAX_FAILURE_CHARS, "one line saying what to check"),
          new Length("engine.missing[]", MAX_METRIC_NAME_CHARS, "a Prometheus metric's name"));

  /** An array's most items, and why. */
  public record Items(String field, int maxItems, String reason) {}

  /** Every bounded array inside {@code engine}, in the schema's order. */
  public static final List<Items> ITEMS =
      List.of(
          new Items("engine.missing", MAX_MISSING, "a mapping's metrics, at most"),
          new Items("histogram.leUs", MAX_BUCKET_BOUNDS, "a histogram's finite bounds"),
          new Items("histogram.counts", MAX_BUCKET_BOUNDS + 1, "one per bound, and +Inf"));

  /** The four histograms of an engine sample, by their field names. */
  public static final List<String> HISTOGRAMS = List.of("tpot", "ttft", "e2e", "queue");

  private static final Map<String, Range> BY_NAME = new LinkedHashMap<>();

  static {
    for (Range r : RANGES) {
      BY_NAME.put(r.field(), r);
    }
  }

  private EngineBounds() {}

  /** The range declared for {@code field} (a name of {@link #RANGES}). */
  public static Range range(String field) {
    Range r = BY_NAME.get(field);
    if (r == null) {
      throw new IllegalArgumentException("no engine range for " + field);
    }
    return r;
  }

  private static int maxChars(String field) {
    for (Length l : LENGTHS) {
      if (l.field().equals(field)) {
        return l.maxChars();
      }
    }
    throw new IllegalArgumentException("no engine length for " + field);
  }

  /**
   * What puts an {@code engine} object outside its bounds (the words after "not a token event: "),
   * the first in the schema's order, or null.
   */
  static String problem(EngineSample s) {
    if (s.endpoint() == null) {
      return "missing engine.endpoint";
    }
    if (s.mapping() == null) {
      return "missing engine.mapping";
    }
    String problem =
        first(
            text("engine.endpoint", s.endpoint()),
            text("engine.mapping", s.mapping()),
            number("engine.intervalMs", s.intervalMs()),
            number("engine.scrapes", s.scrapes()),
            number("engine.failedScrapes", s.failedScrapes()),
            text("engine.failure", s.failure()),
            missingProblem(s.missing()),
            s.resets() == null ? null : number("engine.resets", s.resets()));
    if (problem != null) {
      return problem;
    }
    EngineHistogram[] histograms = {s.tpot(), s.ttft(), s.e2e(), s.queue()};
    for (int i = 0; i < histograms.length; i++) {
      if (histograms[i] != null) {
        problem = histogramProblem("engine." + HISTOGRAMS.get(i), histograms[i]);
        if (problem != null) {
          return problem;
        }
      }
    }
    problem =
        first(
            gauge("engine.running", s.running()),
            gauge("engine.waiting", s.waiting()),
            gauge("engine.kvCacheUsage", s.kvCacheUsage()),
            s.prefixQueries() == null ? null : number("engine.prefixQueries", s.prefixQueries()),
            s.prefixHits() == null ? null : number("engine.prefixHits", s.prefixHits()));
    if (problem != null) {
      return problem;
    }
    if (s.prefixHits() != null && s.prefixQueries() != null && s.prefixHits() > s.prefixQueries()) {
      return "engine.prefixHits "
          + s.prefixHits()
          + " is more than engine.prefixQueries "
          + s.prefixQueries();
    }
    return null;
  }

  /** What puts an end event's {@code engineTiming} outside its bounds, or null. */
  static String problem(EngineTiming t) {
    return first(
        t.queueUs() == null ? null : number("engineTiming.queueUs", t.queueUs()),
        t.ttftUs() == null ? null : number("engineTiming.ttftUs", t.ttftUs()),
        t.meanItlUs() == null ? null : number("engineTiming.meanItlUs", t.meanItlUs()),
        t.generationUs() == null ? null : number("engineTiming.generationUs", t.generationUs()));
  }

  private static String histogramProblem(String name, EngineHistogram h) {
    if (h.leUs() == null) {
      return "missing " + name + ".leUs";
    }
    if (h.counts() == null) {
      return "missing " + name + ".counts";
    }
    List<Long> bounds = h.leUs();
    if (bounds.size() > MAX_BUCKET_BOUNDS) {
      return name + ".leUs has " + bounds.size() + " bounds, more than " + MAX_BUCKET_BOUNDS;
    }
    Range bound = range("histogram.leUs[]");
    for (int i = 0; i < bounds.size(); i++) {
      long b = bounds.get(i);
      String problem = rangeProblem(name + ".leUs[" + i + "]", b, bound);
      if (problem != null) {
        return problem;
      }
      if (i > 0 && b <= bounds.get(i - 1)) {
        return name
            + ".leUs["
            + i
            + "] "
            + b
            + " is not above the bound before it, "
            + bounds.get(i - 1)
            + " (bounds ascend strictly)";
      }
    }
    List<Long> counts = h.counts();
    if (counts.size() != bounds.size() + 1) {
      return name
          + ".counts has "
          + counts.size()
          + " counts for "
          + bounds.size()
          + " bounds (one per bound and one for +Inf: "
          + (bounds.size() + 1)
          + ")";
    }
    Range count = range("histogram.counts[]");
    for (int i = 0; i < counts.size(); i++) {
      String problem = rangeProblem(name + ".counts[" + i + "]", counts.get(i), count);
      if (problem != null) {
        return problem;
      }
    }
    return null;
  }

  private static String missingProblem(List<String> missing) {
    if (missing == null) {
      return null;
    }
    if (missing.size() > MAX_MISSING) {
      return "engine.missing has " + missing.size() + " names, more than " + MAX_MISSING;
    }
    int max = maxChars("engine.missing[]");
    for (int i = 0; i < missing.size(); i++) {
      String problem =
          TokenEventBounds.lengthProblem("engine.missing[" + i + "]", missing.get(i), max);
      if (problem != null) {
        return problem;
      }
    }
    return null;
  }

  private static String text(String field, String value) {
    return value == null ? null : TokenEventBounds.lengthProblem(field, value, maxChars(field));
  }

  private static String number(String field, long value) {
    return rangeProblem(field, value, range(field));
  }

  private static String rangeProblem(String name, long value, Range r) {
    return TokenEventBounds.rangeProblem(name, value, r.min(), r.max());
  }

  /** A gauge's problem: within its range (so finite: JSON's 1e999 reads as infinity), or null. */
  private static String gauge(String field, Double value) {
    if (value == null) {
      return null;
    }
    Range r = range(field);
    double v = value;
    if (Double.isNaN(v)) {
      return field + " is not a number";
    }
    if (v < r.min()) {
      return v < 0 && r.min() == 0
          ? "negative " + field + " " + v
          : field + " " + v + " is less than " + r.min();
    }
    return v > r.max() ? field + " " + v + " is more than " + r.max() : null;
  }

  private static String first(String... problems) {
    for (String p : problems) {
      if (p != null) {
        return p;
      }
    }
    return null;
  }
}

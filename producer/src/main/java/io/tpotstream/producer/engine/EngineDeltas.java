package io.tpotstream.producer.engine;

import io.tpotstream.common.engine.EngineHistogram;
import io.tpotstream.common.engine.EngineSample;
import io.tpotstream.common.event.EngineBounds;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;

/**
 * One endpoint's scrapes turned into what each scrape interval added: per model the engine names
 * (its model label's values), the previous scrape's cumulative bucket counts and counters are kept,
 * and each scrape gives the histograms' and counters' deltas since then and the gauges' values now
 * ({@link EngineSample}). The endpoint's first answer gives gauges only ({@code intervalMs} 0); a
 * model, histogram or counter that appears in a later answer started since the one before, from
 * zero (an engine that had served nothing published nothing). A histogram or counter found below
 * its previous value (an engine restart), or a histogram whose bounds changed, is taken from zero
 * and counted in {@code resets}. A metric the mapping names but the scrape lacks for a model is
 * named in {@code missing}. Plain Java, one thread.
 */
final class EngineDeltas {
  /** The model of an engine that has no model label (or of samples without it). */
  static final String UNLABELLED = "";

  /** The most models one endpoint is followed for; others are left out (and said once). */
  static final int MAX_MODELS = 64;

  private final String endpoint;
  private final Map<String, Previous> previous = new HashMap<>();
  // when the endpoint last answered (-1: never): a model, histogram or counter that was not in
  // that answer and is in the next started since, from zero, as Prometheus's series do
  private long answeredMs = -1;

  /** What a model's previous scrape left: when, its cumulative histograms and counters. */
  private static final class Previous {
    long atMs;
    final Map<String, Cumulative> histograms = new HashMap<>();
    final Map<String, Double> counters = new HashMap<>();
  }

  /** A histogram's cumulative counts at a scrape: bounds in µs and counts, the last +Inf's. */
  private record Cumulative(long[] leUs, long[] counts) {}

  /**
   * @param endpoint the endpoint as printed (secrets masked), for the samples
   */
  EngineDeltas(String endpoint) {
    this.endpoint = endpoint;
  }

  /** The endpoint as its samples carry it. */
  String endpoint() {
    return endpoint;
  }

  /**
   * The samples of the scrape {@code exposition} taken at {@code atMs}, read with {@code mapping},
   * by the engine's model name ({@link #UNLABELLED} without a model label), in the order the body
   * named them; at most {@link #MAX_MODELS}.
   */
  Map<String, EngineSample> next(Exposition exposition, EngineMapping mapping, long atMs) {
    Map<String, Roles> byModel = read(exposition, mapping);
    Map<String, EngineSample> out = new LinkedHashMap<>();
    for (Map.Entry<String, Roles> e : byModel.entrySet()) {
      out.put(e.getKey(), sample(e.getKey(), e.getValue(), mapping, atMs));
    }
    answeredMs = atMs;
    return out;
  }

  /**
   * The endpoint answered at {@code atMs} with no samples (an engine that has served nothing yet):
   * whatever it publishes next started after this.
   */
  void answeredEmpty(long atMs) {
    answeredMs = atMs;
  }

  /** The names a scrape's model lacks, the histogram and counter values it found, its gauges. */
  private static final class Roles {
    final List<String> missing = new ArrayList<>();
    final Map<String, Cumulative> histograms = new LinkedHashMap<>();
    final Map<String, Double> counters = new LinkedHashMap<>();
    final Map<String, Double> gauges = new LinkedHashMap<>();
  }

  private static final String TPOT = "tpot";
  private static final String TTFT = "ttft";
  private static final String E2E = "e2e";
  private static final String QUEUE = "queue";
  private static final String RUNNING = "running";
  private static final String WAITING = "waiting";
  private static final String KV = "kvCacheUsage";
  private static final String QUERIES = "prefixQueries";
  private static final String HITS = "prefixHits";

  /** The body's values per model, by role. */
  private Map<String, Roles> read(Exposition x, EngineMapping m) {
    Map<String, List<String>> histograms = new LinkedHashMap<>();
    histograms.put(TPOT, m.tpot());
    histograms.put(TTFT, m.ttft());
    histograms.put(E2E, m.e2e());
    histograms.put(QUEUE, m.queue());
    Map<String, List<String>> gauges = new LinkedHashMap<>();
    gauges.put(RUNNING, m.running());
    gauges.put(WAITING, m.waiting());
    gauges.put(KV, m.kvCacheUsage());
    Map<String, List<String>> counters = new LinkedHashMap<>();
    counters.put(QUERIES, m.prefixQueries());
    counters.put(HITS, m.prefixHits());

    // the models, in the order the body names them
    Map<String, Roles> models = new LinkedHashMap<>();
    List<List<Exposition.Sample>> all = new ArrayList<>();
    for (Map<String, List<String>> roles : List.of(histograms, gauges, counters)) {
      for (List<String> names : roles.values()) {
        String name = m.present(names, x);
        if (name != null) {
          for (String suffix : ExpositionParser.SUFFIXES) {
            all.add(x.named(name + suffix));
          }
        }
      }
    }
    for (List<Exposition.Sample> samples : all) {
      for (Exposition.Sample s : samples) {
        String model = modelOf(s, m);
        if (!models.containsKey(model) && models.size() < MAX_MODELS) {
          models.put(model, new Roles());
        }
      }
    }
    for (Map.Entry<String, Roles> e : models.entrySet()) {
      String model = e.getKey();
      Roles r = e.getValue();
      collect(histograms, x, m, (role, name) -> histogram(x, name, model, m), r.histograms, r);
      collect(
          gauges,
          x,
          m,
          (role, name) -> gauge(x.named(name), model, m, role.equals(KV)),
          r.gauges,
          r);
      collect(counters, x, m, (role, name) -> counter(x, name, model, m), r.counters, r);
    }
    return models;
  }

  /**
   * Puts into {@code into}, by role, what {@code read} finds of a model under the first of the
   * role's names the body holds; a mapped role the body has none of is named in {@code r}'s missing
   * (by its first name).
   */
  private static <T> void collect(
      Map<String, List<String>> roles,
      Exposition x,
      EngineMapping m,
      BiFunction<String, String, T> read,
      Map<String, T> into,
      Roles r) {
    roles.forEach(
        (role, names) -> {
          String name = m.present(names, x);
          T v = name == null ? null : read.apply(role, name);
          if (v != null) {
            into.put(role, v);
          } else if (!names.isEmpty()) {
            r.missing.add(names.get(0));
          }
        });
  }

  private EngineSample sample(String model, Roles r, EngineMapping m, long atMs) {
    Previous before = previousOf(model);
    Previous now = new Previous();
    now.atMs = atMs;
    now.histograms.putAll(r.histograms);
    now.counters.putAll(r.counters);
    previous.put(model, now);
    int[] resets = {0};
    Map<String, EngineHistogram> deltas = new HashMap<>();
    Map<String, Long> counterDeltas = new HashMap<>();
    if (before != null) {
      r.histograms.forEach(
          (role, c) -> {
            Cumulative was = before.histograms.get(role);
            deltas.put(role, was == null ? delta(c, zero(c), resets) : delta(c, was, resets));
          });
      r.counters.forEach(
          (role, v) -> {
            double d = v - before.counters.getOrDefault(role, 0.0); // new since: from zero
            if (d < 0) {
              resets[0]++;
              d = v; // counted from zero since the restart
            }
            counterDeltas.put(role, Math.round(d));
          });
    }
    return new EngineSample(
        endpoint,
        m.name(),
        before == null ? 0 : Math.max(0, atMs - before.atMs),
        1,
        0,
        null,
        r.missing,
        resets[0],
        deltas.get(TPOT),
        deltas.get(TTFT),
        deltas.get(E2E),
        deltas.get(QUEUE),
        r.gauges.get(RUNNING),
        r.gauges.get(WAITING),
        r.gauges.get(KV),
        counterDeltas.get(QUERIES),
        counterDeltas.get(HITS));
  }

  /**
   * What {@code model}'s previous scrape left; for a model that appeared since the endpoint's last
   * answer, nothing then (all of it is new); null before the endpoint's first answer.
   */
  private Previous previousOf(String model) {
    Previous before = previous.get(model);
    if (before == null && answeredMs >= 0) {
      before = new Previous();
      before.atMs = answeredMs;
    }
    return before;
  }

  /** Keeps at most {@code max} of the cumulative {@code buckets}: every k-th and the last. */
  static void thin(TreeMap<Long, Long> buckets, int max) {
    int n = buckets.size();
    if (n <= max) {
      return;
    }
    int k = (n + max - 1) / max; // ceil: n / k ≤ max
    int i = 0;
    for (var it = buckets.entrySet().iterator(); it.hasNext(); i++) {
      it.next();
      // keep the (k-1)th of every k, counted back from the last, so the last is always kept
      if ((n - 1 - i) % k != 0) {
        it.remove();
      }
    }
  }

  /** No observation yet, in {@code c}'s buckets. */
  private static Cumulative zero(Cumulative c) {
    return new Cumulative(c.leUs, new long[c.counts.length]);
  }

  /** What {@code now} added to {@code was}, per bucket; from zero after a reset (counted). */
  private static EngineHistogram delta(Cumulative now, Cumulative was, int[] resets) {
    long[] d = new long[now.counts.length];
    boolean reset = !Arrays.equals(now.leUs, was.leUs);
    for (int i = 0; i < d.length && !reset; i++) {
      d[i] = now.counts[i] - was.counts[i];
      reset = d[i] < 0;
    }
    if (reset) {
      resets[0]++;
      d = now.counts.clone();
    }
    List<Long> bounds = new ArrayList<>(now.leUs.length);
    for (long le : now.leUs) {
      bounds.add(le);
    }
    List<Long> counts = new ArrayList<>(d.length);
    long below = 0;
    for (long cumulative : d) {
      counts.add(Math.max(0, cumulative - below)); // a body whose buckets fall counts none there
      below = Math.max(below, cumulative);
    }
    return new EngineHistogram(bounds, counts);
  }

  /**
   * The cumulative buckets of histogram {@code name} for {@code model}, summed over its other
   * labels, bounds in µs; null when the body has none for it. More finite bounds than a record
   * holds ({@link EngineBounds#MAX_BUCKET_BOUNDS}) are thinned to fit: every k-th is kept, the last
   * always, and a bound left out merges its observations into the next kept one (cumulative
   * counts), so resolution is lost and no observation.
   */
  private static Cumulative histogram(Exposition x, String name, String model, EngineMapping m) {
    TreeMap<Long, Long> buckets = new TreeMap<>();
    long inf = -1;
    boolean any = false;
    for (Exposition.Sample s : x.named(name + "_bucket")) {
      String le = s.labels().get("le");
      if (le == null || !modelOf(s, m).equals(model) || !(s.value() >= 0)) {
        continue;
      }
      Double bound = ExpositionParser.number(le.trim());
      if (bound == null || bound.isNaN() || bound < 0) {
        continue;
      }
      any = true;
      long count = Math.round(Math.min(s.value(), Long.MAX_VALUE));
      if (bound.isInfinite()) {
        inf = Math.max(0, inf) + count;
      } else {
        long leUs = Math.round(bound * m.histogramUnit().micros);
        // cumulative buckets: leaving a bound out merges its observations into the next one's
        // (+Inf past the last), so a bound outside the record's range costs resolution, not data
        if (leUs >= 1 && leUs <= EngineBounds.MAX_BOUND_US) {
          buckets.merge(leUs, count, Long::sum);
        }
      }
    }
    if (!any) {
      return null;
    }
    if (inf < 0) {
      // no +Inf bucket: the count of observations, else the last bucket's
      long last = buckets.isEmpty() ? 0 : buckets.lastEntry().getValue();
      Double count = sum(x.named(name + "_count"), model, m);
      inf = Math.max(last, count == null ? 0 : Math.round(Math.min(count, Long.MAX_VALUE)));
    }
    thin(buckets, EngineBounds.MAX_BUCKET_BOUNDS);
    long[] leUs = new long[buckets.size()];
    long[] counts = new long[buckets.size() + 1];
    int i = 0;
    for (Map.Entry<Long, Long> b : buckets.entrySet()) {
      leUs[i] = b.getKey();
      counts[i++] = b.getValue();
    }
    counts[i] = inf;
    return new Cumulative(leUs, counts);
  }

  /** Counter {@code name} ({@code name_total}, else {@code name}) for {@code model}, summed. */
  private static Double counter(Exposition x, String name, String model, EngineMapping m) {
    Double total = sum(x.named(name + "_total"), model, m);
    return total != null ? total : sum(x.named(name), model, m);
  }

  /** A gauge for {@code model}: the largest value ({@code max}) or the sum over its series. */
  private static Double gauge(
      List<Exposition.Sample> samples, String model, EngineMapping m, boolean max) {
    Double v = null;
    for (Exposition.Sample s : samples) {
      if (modelOf(s, m).equals(model) && Double.isFinite(s.value())) {
        v = v == null ? s.value() : max ? Math.max(v, s.value()) : v + s.value();
      }
    }
    return v;
  }

  private static Double sum(List<Exposition.Sample> samples, String model, EngineMapping m) {
    return gauge(samples, model, m, false);
  }

  private static String modelOf(Exposition.Sample s, EngineMapping m) {
    if (m.modelLabel() == null) {
      return UNLABELLED;
    }
    String model = s.labels().get(m.modelLabel());
    return model == null ? UNLABELLED : model;
  }
}

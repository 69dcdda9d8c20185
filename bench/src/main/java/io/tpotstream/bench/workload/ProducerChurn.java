package io.tpotstream.bench.workload;

import io.tpotstream.common.Series;
import io.tpotstream.common.Windows;
import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Short-lived producers coming and going: producer {@code i} starts about {@code i × every} after
 * the base time (plus up to a minute), lives 100 to 140 s with heartbeats every second to every
 * partition (watermark 200 ms behind), and sends 5 to 8 requests one after another (start, 8 to 12
 * tokens, end), each labelled {@code job=job-<i>} so that, grouped by {@link #LABEL}, every
 * producer is a series of its own. It ends with a final heartbeat, except every 10th ({@code i % 10
 * == 4}), which is killed in the middle of its last request: no final heartbeat, that request never
 * ends. Deterministic for a given seed; producers never overlap, so their logs concatenated are in
 * timestamp order.
 */
public final class ProducerChurn {
  /** The label unique to each producer: the aggregator groups by it. */
  public static final String LABEL = "job";

  private static final long WATERMARK_MARGIN_MS = 200;
  private static final long HEARTBEAT_EVERY_MS = WorkloadShape.HEARTBEAT_EVERY.toMillis();
  private static final long JITTER_MS = 60_000;
  private static final long MIN_LIFE_MS = 100_000;
  private static final long MAX_LIFE_MS = 140_000;

  private final int producers;
  private final long everyMs;
  private final long baseTsMs;
  private final int partitions;
  private final long windowMs;
  private final long requestTimeoutMs;
  private final long seed;

  /**
   * @param producers how many producers come and go
   * @param every the time between two producers' starts (at least 4 minutes: they never overlap)
   * @param baseTsMs the first producer's earliest start (epoch ms)
   * @param partitions partitions of the topic (heartbeats go to each)
   * @param window the aggregator's window, to know the (series, window) pairs it will emit
   * @param requestTimeout the aggregator's request timeout: a killed producer's cut request is
   *     counted as abandoned in the window of its last event + this
   */
  public ProducerChurn(
      int producers,
      Duration every,
      long baseTsMs,
      int partitions,
      Duration window,
      Duration requestTimeout,
      long seed) {
    if (every.toMillis() < JITTER_MS + MAX_LIFE_MS + 1) {
      throw new IllegalArgumentException("producers would overlap: every " + every);
    }
    this.producers = producers;
    this.everyMs = every.toMillis();
    this.baseTsMs = baseTsMs;
    this.partitions = partitions;
    this.windowMs = window.toMillis();
    this.requestTimeoutMs = requestTimeout.toMillis();
    this.seed = seed;
  }

  public int producers() {
    return producers;
  }

  /** Whether producer {@code i} is killed (no final heartbeat, its last request cut). */
  public static boolean killed(int i) {
    return i % 10 == 4;
  }

  /** One producer's log. */
  public record ProducerLog(
      int index, long startMs, long lastTsMs, int requests, List<Sent> records) {}

  /** A record to publish: a keyed event ({@code partition} -1) or a heartbeat to a partition. */
  public record Sent(TokenEvent event, int partition) {}

  /** Producer {@code i}'s records, in timestamp order. */
  public ProducerLog producer(int i) {
    SplittableRandom random = new SplittableRandom(seed * 1_000_003L + i);
    long start = baseTsMs + i * everyMs + random.nextLong(JITTER_MS);
    long life = MIN_LIFE_MS + random.nextLong(MAX_LIFE_MS - MIN_LIFE_MS + 1);
    long end = start + life;
    String runId = String.format("churn-%04d", i);
    String producerId = "churn-producer-" + i;
    String model = String.format("churn-model-%d", i % 5);
    SortedMap<String, String> labels = new TreeMap<>();
    labels.put(LABEL, String.format("job-%04d", i));
    labels.put("concurrency", "1");
    boolean killed = killed(i);
    List<Sent> events = new ArrayList<>();
    int requests = 5 + random.nextInt(4);
    long slot = (life - 10_000) / requests;
    long deathMs = Long.MAX_VALUE;
    for (int r = 0; r < requests; r++) {
      String requestId = runId + "-" + r;
      long t0 = start + 2_000 + r * slot + random.nextLong(2_000);
      int tokens = 8 + random.nextInt(5);
      events.add(
          new Sent(TokenEvent.start(t0, runId, requestId, model, labels, null, producerId), -1));
      long t = t0 + logNormalMs(random, 300, 0.4);
      for (int seq = 0; seq < tokens; seq++) {
        long elapsedNs = (t - t0) * 1_000_000L;
        events.add(
            new Sent(
                TokenEvent.token(
                    t,
                    runId,
                    requestId,
                    model,
                    labels,
                    elapsedNs,
                    seq,
                    1,
                    TokenKind.CONTENT,
                    producerId),
                -1));
        if (killed && r == requests - 1 && seq == tokens / 2) {
          deathMs = t; // killed -9 mid-stream: nothing more from this producer
          break;
        }
        t += logNormalMs(random, 50, 0.5);
      }
      if (deathMs != Long.MAX_VALUE) {
        break;
      }
      events.add(
          new Sent(
              TokenEvent.end(
                  t,
                  runId,
                  requestId,
                  model,
                  labels,
                  (t - t0) * 1_000_000L,
                  tokens,
                  20,
                  tokens,
                  "length",
                  null,
                  producerId),
              -1));
    }
    long last = killed ? deathMs : end;
    for (long hb = start; hb <= last; hb += HEARTBEAT_EVERY_MS) {
      TokenEvent heartbeat =
          TokenEvent.heartbeat(hb, runId, producerId, hb - WATERMARK_MARGIN_MS, false, 150L);
      for (int p = 0; p < partitions; p++) {
        events.add(new Sent(heartbeat, p));
      }
    }
    if (!killed) {
      TokenEvent fin = TokenEvent.heartbeat(end, runId, producerId, end, true, 150L);
      for (int p = 0; p < partitions; p++) {
        events.add(new Sent(fin, p));
      }
    }
    // in ts order; at the same ts a heartbeat (its watermark is behind) may go either way
    events.sort(Comparator.comparingLong((Sent s) -> s.event().ts()));
    return new ProducerLog(i, start, events.get(events.size() - 1).event().ts(), requests, events);
  }

  /**
   * The (series, window start) pairs the aggregator grouped by {@link #LABEL} emits for producers
   * {@code [0, count)}: every window a request event of a series falls in, and for a killed
   * producer's cut request the window of its expiry.
   */
  public Set<String> seriesWindows(List<ProducerLog> logs) {
    Set<String> pairs = new TreeSet<>();
    Duration window = Duration.ofMillis(windowMs);
    for (ProducerLog log : logs) {
      String open = null;
      long openLastTs = 0;
      for (Sent s : log.records()) {
        TokenEvent e = s.event();
        if (e.type() == EventType.HEARTBEAT) {
          continue;
        }
        String series = Series.name(e.model(), Series.select(e.labels(), List.of(LABEL)));
        pairs.add(key(series, Windows.startOf(e.ts(), window)));
        boolean ends = e.type() == EventType.END || e.type() == EventType.ERROR;
        open = ends ? null : series;
        openLastTs = e.ts();
      }
      if (open != null) {
        pairs.add(key(open, Windows.startOf(openLastTs + requestTimeoutMs, window)));
      }
    }
    return pairs;
  }

  /** How a (series, window start) pair is named in {@link #seriesWindows}. */
  public static String key(String series, long windowStartMs) {
    return series + "@" + windowStartMs;
  }

  private static long logNormalMs(SplittableRandom random, double medianMs, double sigma) {
    double u1 = 1.0 - random.nextDouble();
    double u2 = random.nextDouble();
    double gaussian = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    return Math.max(1, Math.round(medianMs * Math.exp(sigma * gaussian)));
  }
}

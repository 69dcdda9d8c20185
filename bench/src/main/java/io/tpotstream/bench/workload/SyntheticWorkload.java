package io.tpotstream.bench.workload;

import io.tpotstream.common.Windows;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenKind;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.NavigableMap;
import java.util.PriorityQueue;
import java.util.SortedMap;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Generates a closed-loop producer's event log in timestamp order, as the real producer would
 * publish it: per request a {@code start}, its {@code token} chunks and an {@code end} (or a {@code
 * truncated} error), heartbeats to every partition each second with a watermark 200 ms behind, and
 * final heartbeats at the end. Deterministic for a given shape.
 */
public final class SyntheticWorkload {
  /** Where an event goes: a keyed event (partition chosen by key) or a heartbeat to a partition. */
  public interface Sink {
    /**
     * @param partition the heartbeat's partition, or -1 for an event keyed by its request id
     */
    void accept(TokenEvent event, int partition);
  }

  /**
   * What was generated, to know when an aggregator is done with it; {@code recordsByWindow} counts
   * the records (heartbeats included) by the start of the window their {@code ts} falls in.
   */
  public record Summary(
      long records,
      long requests,
      long tokenEvents,
      long heartbeats,
      long firstTsMs,
      long lastTsMs,
      long lastWindowEndMs,
      int seriesInLastWindow,
      long seriesWindows,
      long windowMs,
      NavigableMap<Long, Long> recordsByWindow) {

    /** Records whose {@code ts} is at or after {@code tsMs} (a window boundary). */
    public long recordsFrom(long tsMs) {
      return recordsByWindow.tailMap(tsMs, true).values().stream().mapToLong(Long::longValue).sum();
    }

    /** The end of the first window holding a record. */
    public long firstWindowEndMs() {
      return recordsByWindow.firstKey() + windowMs;
    }
  }

  private static final long WATERMARK_MARGIN_MS = 200;
  private static final String RUN_ID = "bench";
  private static final String PRODUCER_ID = "bench-producer-1";
  private static final double GAP_SIGMA = 0.5;
  private static final double TTFT_MEDIAN_MS = 300;
  private static final double TTFT_SIGMA = 0.4;

  private final WorkloadShape shape;
  private final Duration window;
  private final long baseTsMs;
  private final SortedMap<String, String> labels = new TreeMap<>(Map.of("concurrency", "256"));

  /**
   * @param window the aggregator's window size, to know the last window and the (series, window)
   *     pairs it will emit
   * @param baseTsMs the synthetic run's start (epoch ms)
   */
  public SyntheticWorkload(WorkloadShape shape, Duration window, long baseTsMs) {
    this.shape = shape;
    this.window = window;
    this.baseTsMs = baseTsMs;
  }

  private static final class Stream implements Comparable<Stream> {
    final int id;
    long nextNs;
    String requestId;
    String model;
    int modelIndex;
    long startNs;
    int tokens;
    int seq;
    boolean fails;
    boolean started;

    Stream(int id) {
      this.id = id;
    }

    @Override
    public int compareTo(Stream o) {
      int c = Long.compare(nextNs, o.nextNs);
      return c != 0 ? c : Integer.compare(id, o.id);
    }
  }

  /** Generates every record into {@code sink}, in timestamp order. */
  public Summary generate(Sink sink) {
    SplittableRandom random = new SplittableRandom(shape.seed());
    PriorityQueue<Stream> queue = new PriorityQueue<>();
    long planned = 0;
    long requests = 0;
    long tokenEvents = 0;
    long heartbeats = 0;
    long records = 0;
    long lastTsMs = baseTsMs;
    long heartbeatEveryNs = WorkloadShape.HEARTBEAT_EVERY.toNanos();
    long nextHeartbeatNs = 0;
    long seriesWindows = 0;
    long windowMs = window.toMillis();
    NavigableMap<Long, Long> byWindow = new TreeMap<>();
    long[] lastWindowOfModel = new long[shape.models()];
    Arrays.fill(lastWindowOfModel, Long.MIN_VALUE);
    // heartbeats ahead of the first request, as a producer sends them on start
    records += heartbeat(sink, baseTsMs, false);
    byWindow.merge(Windows.startOf(baseTsMs, window), (long) shape.partitions(), Long::sum);
    heartbeats += shape.partitions();
    nextHeartbeatNs += heartbeatEveryNs;
    for (int i = 0; i < shape.streams(); i++) {
      Stream s = new Stream(i);
      // streams join over the first second, so their tokens do not arrive in lockstep
      s.nextNs = random.nextLong(1_000_000_000L);
      queue.add(s);
    }
    long requestIndex = 0;
    while (!queue.isEmpty()) {
      Stream s = queue.poll();
      while (s.nextNs >= nextHeartbeatNs) {
        long hbMs = baseTsMs + nextHeartbeatNs / 1_000_000;
        records += heartbeat(sink, hbMs, false);
        byWindow.merge(Windows.startOf(hbMs, window), (long) shape.partitions(), Long::sum);
        heartbeats += shape.partitions();
        nextHeartbeatNs += heartbeatEveryNs;
      }
      long tsMs = baseTsMs + s.nextNs / 1_000_000;
      if (!s.started) {
        int tokens = shape.minTokens() + random.nextInt(shape.maxTokens() - shape.minTokens() + 1);
        if (planned + tokens + 2 > shape.targetRecords()) {
          continue; // the stream retires
        }
        planned += tokens + 2;
        s.started = true;
        s.requestId = RUN_ID + "-" + requestIndex++;
        s.modelIndex = random.nextInt(shape.models());
        s.model = String.format("bench-model-%02d", s.modelIndex);
        s.tokens = tokens;
        s.seq = 0;
        s.fails = random.nextDouble() < shape.failedShare();
        s.startNs = s.nextNs;
        requests++;
        sink.accept(
            TokenEvent.start(tsMs, RUN_ID, s.requestId, s.model, labels, null, PRODUCER_ID), -1);
        s.nextNs += logNormalNs(random, TTFT_MEDIAN_MS, TTFT_SIGMA);
      } else if (s.seq < s.tokens && !(s.fails && s.seq == s.tokens / 2)) {
        sink.accept(
            TokenEvent.token(
                tsMs,
                RUN_ID,
                s.requestId,
                s.model,
                labels,
                s.nextNs - s.startNs,
                s.seq,
                1,
                TokenKind.CONTENT,
                PRODUCER_ID),
            -1);
        tokenEvents++;
        s.seq++;
        s.nextNs += logNormalNs(random, shape.gapMedianMs(), GAP_SIGMA);
      } else {
        long elapsedNs = s.nextNs - s.startNs;
        if (s.fails) {
          sink.accept(
              TokenEvent.error(
                  tsMs,
                  RUN_ID,
                  s.requestId,
                  s.model,
                  labels,
                  elapsedNs,
                  s.seq,
                  "truncated",
                  null,
                  "stream ended without [DONE] or a finish reason",
                  null,
                  PRODUCER_ID),
              -1);
          // the planned events that a cut stream never sent
          planned -= s.tokens - s.seq;
        } else {
          sink.accept(
              TokenEvent.end(
                  tsMs,
                  RUN_ID,
                  s.requestId,
                  s.model,
                  labels,
                  elapsedNs,
                  s.seq,
                  20,
                  s.tokens,
                  "length",
                  null,
                  PRODUCER_ID),
              -1);
        }
        s.started = false;
        // the next request of this stream goes out at once (closed loop)
      }
      records++;
      lastTsMs = Math.max(lastTsMs, tsMs);
      long windowStart = Math.floorDiv(tsMs, windowMs) * windowMs;
      byWindow.merge(windowStart, 1L, Long::sum);
      if (lastWindowOfModel[s.modelIndex] != windowStart) {
        lastWindowOfModel[s.modelIndex] = windowStart;
        seriesWindows++;
      }
      queue.add(s);
    }
    records += heartbeat(sink, lastTsMs, true);
    byWindow.merge(Windows.startOf(lastTsMs, window), (long) shape.partitions(), Long::sum);
    heartbeats += shape.partitions();
    long lastWindowStart = Windows.startOf(lastTsMs, window);
    int inLast = 0;
    for (long w : lastWindowOfModel) {
      if (w == lastWindowStart) {
        inLast++;
      }
    }
    return new Summary(
        records,
        requests,
        tokenEvents,
        heartbeats,
        baseTsMs,
        lastTsMs,
        lastWindowStart + window.toMillis(),
        inLast,
        seriesWindows,
        windowMs,
        byWindow);
  }

  private int heartbeat(Sink sink, long tsMs, boolean isFinal) {
    long watermark = isFinal ? tsMs : tsMs - WATERMARK_MARGIN_MS;
    TokenEvent hb = TokenEvent.heartbeat(tsMs, RUN_ID, PRODUCER_ID, watermark, isFinal, 150L);
    for (int p = 0; p < shape.partitions(); p++) {
      sink.accept(hb, p);
    }
    return shape.partitions();
  }

  private static long logNormalNs(SplittableRandom random, double medianMs, double sigma) {
    return Math.round(medianMs * Math.exp(sigma * gaussian(random)) * 1e6);
  }

  private static double gaussian(SplittableRandom random) {
    // Box-Muller; SplittableRandom has no nextGaussian in Java 17
    double u1 = 1.0 - random.nextDouble();
    double u2 = random.nextDouble();
    return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  }
}

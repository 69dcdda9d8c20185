package io.tpotstream.aggregator.partial;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.aggregator.topology.AggregatorTopology;
import io.tpotstream.common.binary.BinaryReader;
import io.tpotstream.common.binary.BinaryWriter;
import io.tpotstream.common.engine.EngineHistogram;
import io.tpotstream.common.engine.EngineSample;
import io.tpotstream.common.event.EngineBounds;
import io.tpotstream.common.event.ErrorClasses;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Stage 1 counts each series' next window in the counts it cleared. */
class WindowCountsTest {

  private static byte[] bytes(WindowCounts counts) {
    BinaryWriter out = new BinaryWriter();
    counts.writeTo(out);
    return out.toByteArray();
  }

  private static Consumer<WindowCounts> window(long seed, boolean withTtft) {
    return c -> {
      Random r = new Random(seed);
      for (int i = 0; i < 5_000; i++) {
        c.latency(Metric.TPOT, (long) Math.exp(9 + r.nextGaussian()), 1 + r.nextInt(2));
      }
      if (withTtft) {
        c.latency(Metric.TTFT, 150_000 + r.nextInt(1_000), 1);
      }
      c.started(3 + r.nextInt(5));
      c.completedFull(2);
      c.failed("http_" + (500 + r.nextInt(3)), 1);
      c.lateSamples(r.nextInt(3));
      c.goodRequests(1);
      c.promptCache(2, 3_000 + r.nextInt(100), r.nextInt(3_000));
      if (withTtft) {
        c.engine(scrape(r));
      }
    };
  }

  /** A scrape of an engine with random counts in fixed bounds, and random gauges. */
  private static EngineSample scrape(Random r) {
    List<Long> counts = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      counts.add((long) r.nextInt(1_000));
    }
    return new EngineSample(
        "http://e:8000/metrics",
        "vllm",
        5_000,
        1,
        r.nextInt(2),
        null,
        List.of("vllm:m" + r.nextInt(3)),
        r.nextInt(2),
        new EngineHistogram(List.of(10_000L, 25_000L, 50_000L), counts),
        null,
        null,
        null,
        (double) r.nextInt(64),
        null,
        r.nextInt(100) / 100.0,
        2_048L,
        (long) r.nextInt(2_049));
  }

  @Test
  void clearedCountsWriteExactlyWhatNewOnesWould() {
    WindowCounts reused = new WindowCounts();
    for (int w = 0; w < 4; w++) {
      Consumer<WindowCounts> fill = window(w, w % 2 == 0); // TTFT in every other window only
      WindowCounts fresh = new WindowCounts();
      fill.accept(fresh);
      reused.clear();
      fill.accept(reused);
      assertArrayEquals(bytes(fresh), bytes(reused), "window " + w);
    }
    reused.clear();
    assertArrayEquals(bytes(new WindowCounts()), bytes(reused), "cleared: as new");
  }

  /** Stage 2 adds a partial read from its bytes: the same as building it, then adding it. */
  @Test
  void addingTheBinaryFormIsAddingTheCounts() {
    WindowCounts added = new WindowCounts();
    WindowCounts read = new WindowCounts();
    for (int w = 0; w < 4; w++) {
      WindowCounts partial = new WindowCounts();
      window(w, w % 2 == 1).accept(partial);
      added.add(partial);
      read.addFrom(new BinaryReader(bytes(partial)));
      assertArrayEquals(bytes(added), bytes(read), "after partial " + w);
    }
  }

  /** A partial written before the prompt-cache sums (format 3) is read, as none. */
  @Test
  void aFormat3PartialReadsAsNoPromptCache() {
    WindowCounts counts = new WindowCounts();
    counts.started(2);
    counts.goodRequests(1);
    byte[] format3 = {3, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    WindowCounts read = WindowCounts.readFrom(new BinaryReader(format3));
    assertArrayEquals(bytes(counts), bytes(read));
    assertEquals(null, read.toStats().promptCache());
  }

  /** A partial written before the engine's sums (format 4) is read, as none. */
  @Test
  void aFormat4PartialReadsAsNoEngine() {
    WindowCounts counts = new WindowCounts();
    counts.started(2);
    counts.promptCache(1, 10, 5);
    byte[] format4 = {4, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 10, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    WindowCounts read = WindowCounts.readFrom(new BinaryReader(format4));
    assertArrayEquals(bytes(counts), bytes(read));
    assertEquals(null, read.toStats().engineView());
    assertEquals(5, read.toStats().promptCache().cachedTokens());
  }

  /**
   * Whatever the input, a partial fits a Kafka record (1 MB by default): every latency histogram
   * with a count in every bucket of its range (1 µs to an hour), counts near a long's limits, every
   * error class a reader keeps (the known ones and {@code other}), the longest series name the
   * contract allows and an engine's largest scrape (every histogram with its most bounds, the most
   * missing names). Its summary is larger only by the JSON around these same buckets.
   */
  @Test
  void theLargestPossiblePartialFitsARecord() {
    WindowCounts worst = new WindowCounts();
    for (Metric m : Metric.VALUES) {
      for (long micros = 1; micros <= 3_600_000_000L; micros += Math.max(1, micros / 1_024)) {
        worst.latency(m, micros, Long.MAX_VALUE / 32_000);
      }
    }
    worst.started(Long.MAX_VALUE / 4);
    worst.completedFull(Long.MAX_VALUE / 4);
    worst.lateSamples(Long.MAX_VALUE / 4);
    worst.promptCache(Long.MAX_VALUE / 4, Long.MAX_VALUE / 4, Long.MAX_VALUE / 4);
    for (String errorClass : ErrorClasses.KNOWN) {
      worst.failed(errorClass, Long.MAX_VALUE / 64);
    }
    worst.failed("other", Long.MAX_VALUE / 64);
    worst.engine(largestScrape());
    BinaryWriter out = new BinaryWriter();
    new SeriesName("m".repeat(4 * 1024), "m".repeat(1024), new TreeMap<>()).writeTo(out);
    worst.writeTo(out);
    int size = out.toByteArray().length;
    assertTrue(size < 3_000_000, "a partial of " + size + " bytes");
    assertTrue(size < AggregatorTopology.MAX_INTERNAL_RECORD_BYTES);
  }

  /** An engine scrape at the bounds: every histogram and name list as large as a record allows. */
  private static EngineSample largestScrape() {
    List<Long> bounds = new ArrayList<>();
    List<Long> counts = new ArrayList<>();
    for (int i = 1; i <= EngineBounds.MAX_BUCKET_BOUNDS; i++) {
      bounds.add(3_600_000_000L - EngineBounds.MAX_BUCKET_BOUNDS + i);
      counts.add(1_000_000_000_000L);
    }
    counts.add(1_000_000_000_000L);
    EngineHistogram h = new EngineHistogram(bounds, counts);
    List<String> missing = new ArrayList<>();
    for (int i = 0; i < EngineBounds.MAX_MISSING; i++) {
      missing.add(String.format("%03d", i).repeat(EngineBounds.MAX_METRIC_NAME_CHARS / 3));
    }
    return new EngineSample(
        "u".repeat(512),
        "m",
        86_400_000,
        1,
        1_000_000,
        null,
        missing,
        1_000_000,
        h,
        h,
        h,
        h,
        1e9,
        1e9,
        1.0,
        1_000_000_000_000_000L,
        1_000_000_000_000_000L);
  }
}

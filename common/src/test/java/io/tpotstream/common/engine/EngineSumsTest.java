package io.tpotstream.common.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.tpotstream.common.Json;
import io.tpotstream.common.binary.BinaryReader;
import io.tpotstream.common.binary.BinaryWriter;
import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The engine's view of a window from known histograms and gauges: percentiles as the exact bucket
 * intervals, time outside the engine as the client's percentile minus them, and sums that do not
 * depend on the order they were added in.
 */
class EngineSumsTest {
  /** Bounds of 10, 25, 100 and 150 ms. */
  private static final List<Long> BOUNDS = List.of(10_000L, 25_000L, 100_000L, 150_000L);

  private static EngineHistogram histogram(List<Long> bounds, Long... counts) {
    return new EngineHistogram(bounds, List.of(counts));
  }

  private static EngineSample scrape(
      EngineHistogram tpot, EngineHistogram ttft, Double running, Double kv, Long q, Long h) {
    return new EngineSample(
        "http://e:8000/metrics",
        "vllm",
        5_000,
        1,
        0,
        null,
        null,
        null,
        tpot,
        ttft,
        null,
        null,
        running,
        null,
        kv,
        q,
        h);
  }

  private static EngineView.Interval ms(String lo, String hi) {
    return new EngineView.Interval(
        lo == null ? null : new BigDecimal(lo), hi == null ? null : new BigDecimal(hi));
  }

  /** 99 observations in (10, 25] ms and one in (100, 150] ms. */
  private static EngineSample ninetyNineAndOne() {
    return scrape(histogram(BOUNDS, 0L, 99L, 0L, 1L, 0L), null, null, null, null, null);
  }

  @Test
  void percentilesAreTheBucketsTheirRankFallsIn() {
    EngineSums sums = new EngineSums();
    sums.add(ninetyNineAndOne());
    EngineView view = sums.view(new LatencyHistogram(), new LatencyHistogram());
    EngineView.Latency tpot = view.tpot();
    assertEquals(100, tpot.count());
    assertEquals(ms("10.000", "25.000"), tpot.p50Ms()); // rank 50
    assertEquals(ms("10.000", "25.000"), tpot.p90Ms()); // rank 90
    assertEquals(ms("10.000", "25.000"), tpot.p99Ms()); // rank 99: the 99th is still in (10, 25]
    assertEquals(ms("100.000", "150.000"), tpot.p999Ms()); // rank ceil(99.9) = 100
    assertNull(tpot.unmerged());
    assertNull(view.ttft(), "no TTFT histogram was scraped");
    assertNull(view.outside(), "no client sample");
  }

  @Test
  void thePlusInfBucketHasNoUpperEndAndTheFirstStartsAtZero() {
    EngineSums sums = new EngineSums();
    sums.add(scrape(histogram(List.of(10_000L), 2L, 3L), null, null, null, null, null));
    EngineView.Latency tpot = sums.view(new LatencyHistogram(), new LatencyHistogram()).tpot();
    assertEquals(ms("10.000", null), tpot.p50Ms()); // rank 3 of 5: the +Inf bucket
    EngineSums first = new EngineSums();
    first.add(scrape(histogram(List.of(10_000L), 4L, 1L), null, null, null, null, null));
    EngineView.Latency low = first.view(new LatencyHistogram(), new LatencyHistogram()).tpot();
    assertEquals(ms("0.000", "10.000"), low.p50Ms());
    assertEquals(ms("10.000", null), low.p999Ms());
  }

  @Test
  void aHistogramWithoutObservationsHasACountAndNoPercentile() {
    EngineSums sums = new EngineSums();
    sums.add(scrape(histogram(BOUNDS, 0L, 0L, 0L, 0L, 0L), null, null, null, null, null));
    assertEquals(
        new EngineView.Latency(0, null, null, null, null),
        sums.view(new LatencyHistogram(), new LatencyHistogram()).tpot());
  }

  @Test
  void timeOutsideTheEngineIsTheClientsPercentileMinusTheEnginesInterval() {
    LatencyHistogram client = new LatencyHistogram();
    client.recordMicros(30_000, 99); // HdrHistogram reports 30.015 ms (its bucket is 16 µs wide)
    client.recordMicros(180_000); // reported as 180.095 ms (128 µs wide)
    assertEquals(30_015, client.percentileMicros(50.0));
    assertEquals(180_095, client.percentileMicros(99.9));
    EngineSums sums = new EngineSums();
    sums.add(ninetyNineAndOne());
    EngineView view = sums.view(client, new LatencyHistogram());
    EngineView.Added tpot = view.outside().tpot();
    assertEquals(ms("5.015", "20.015"), tpot.p50Ms()); // 30.015 - [10, 25]
    assertEquals(ms("5.015", "20.015"), tpot.p99Ms());
    assertEquals(ms("30.095", "80.095"), tpot.p999Ms()); // 180.095 - [100, 150]
    assertNull(view.outside().ttft(), "no TTFT on either side");

    // a client faster than the engine's bucket: a negative bound; +Inf: no lower end
    LatencyHistogram fast = new LatencyHistogram();
    fast.recordMicros(2_000, 10);
    EngineSums inf = new EngineSums();
    inf.add(scrape(null, histogram(List.of(1_000L), 0L, 5L), null, null, null, null));
    EngineView.Added ttft = inf.view(new LatencyHistogram(), fast).outside().ttft();
    assertEquals(ms(null, "1.000"), ttft.p50Ms()); // 2 ms - [1 ms, +Inf]
    EngineSums slow = new EngineSums();
    slow.add(scrape(null, histogram(List.of(5_000L), 5L, 0L), null, null, null, null));
    assertEquals(
        ms("-3.000", "2.000"), slow.view(new LatencyHistogram(), fast).outside().ttft().p99Ms());
  }

  @Test
  void gaugesAndThePrefixCacheAreSummedExactly() {
    EngineSums sums = new EngineSums();
    sums.add(scrape(null, null, 3.0, 0.12, 2_048L, 1_024L));
    sums.add(scrape(null, null, 5.0, 0.13, 2_048L, 0L));
    sums.add(scrape(null, null, 4.0, null, null, 99L)); // hits without queries: not counted
    EngineView view = sums.view(new LatencyHistogram(), new LatencyHistogram());
    assertEquals(
        new EngineView.Gauge(3, new BigDecimal("5.0000"), new BigDecimal("4.0000")),
        view.running());
    assertEquals(
        new EngineView.Gauge(2, new BigDecimal("0.1300"), new BigDecimal("0.1250")),
        view.kvCacheUsage());
    assertNull(view.waiting());
    assertEquals(new BigDecimal("0.2500"), view.prefixCacheHitRate());
    assertEquals(3, view.scrapes());
  }

  @Test
  void histogramsWithOtherBoundsAreCountedNotMergedWhateverTheOrder() {
    EngineSample wide = ninetyNineAndOne();
    EngineSample narrow =
        scrape(histogram(List.of(5_000L, 50_000L), 7L, 2L, 1L), null, null, null, null, null);
    EngineSums one = new EngineSums();
    one.add(wide);
    one.add(wide);
    one.add(narrow);
    EngineSums other = new EngineSums();
    other.add(narrow);
    other.add(wide);
    EngineSums split = new EngineSums();
    split.add(wide);
    EngineSums rest = new EngineSums();
    rest.add(narrow);
    rest.add(wide);
    split.add(rest);
    other.add(wide);
    for (EngineSums sums : List.of(one, other, split)) {
      EngineView.Latency tpot = sums.view(new LatencyHistogram(), new LatencyHistogram()).tpot();
      // the fewer bounds are merged, the two others counted
      assertEquals(
          new EngineView.Latency(
              10,
              ms("0.000", "5.000"),
              ms("5.000", "50.000"),
              ms("50.000", null),
              ms("50.000", null),
              2L),
          tpot);
    }
    assertArrayEquals(bytes(one), bytes(other));
    assertArrayEquals(bytes(one), bytes(split));
  }

  @Test
  void twoPartialsAddedFromTheirBytesAreTheirSum() {
    EngineSums a = new EngineSums();
    a.add(ninetyNineAndOne());
    a.add(
        new EngineSample(
            "http://e:8000/metrics",
            "vllm",
            5_000,
            1,
            3,
            "refused",
            List.of("vllm:b", "vllm:a"),
            1,
            null,
            null,
            histogram(List.of(1_000_000L), 9L, 1L),
            histogram(List.of(5_000L), 8L, 0L),
            2.0,
            1.0,
            0.5,
            100L,
            40L));
    EngineSums b = new EngineSums();
    b.add(ninetyNineAndOne());
    b.add(scrape(null, null, 6.0, 0.25, 100L, 60L));
    EngineSums added = new EngineSums();
    added.add(a);
    added.add(b);
    EngineSums read = new EngineSums();
    read.addFrom(new BinaryReader(bytes(a)));
    read.addFrom(new BinaryReader(bytes(b)));
    assertArrayEquals(bytes(added), bytes(read));
    EngineView view = read.view(new LatencyHistogram(), new LatencyHistogram());
    assertEquals(200, view.tpot().count());
    assertEquals(ms("100.000", "150.000"), view.tpot().p999Ms()); // rank 200 of 200
    assertEquals(ms("10.000", "25.000"), view.tpot().p99Ms()); // rank 198
    assertEquals(List.of("vllm:a", "vllm:b"), view.missing());
    assertEquals(3, view.failedScrapes());
    assertEquals(1, view.resets());
    assertEquals(new BigDecimal("0.5000"), view.prefixCacheHitRate());
    assertEquals(
        new EngineView.Gauge(2, new BigDecimal("6.0000"), new BigDecimal("4.0000")),
        view.running());
  }

  @Test
  void missingNamesAreTheFirst32InSortOrder() {
    EngineSums sums = new EngineSums();
    List<String> expected = new ArrayList<>();
    for (int i = 99; i >= 0; i--) {
      String name = String.format("vllm:metric_%02d", i);
      sums.add(
          new EngineSample(
              "u",
              "vllm",
              0,
              1,
              0,
              null,
              List.of(name),
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null));
      if (i < 32) {
        expected.add(0, name);
      }
    }
    assertEquals(expected, sums.view(new LatencyHistogram(), new LatencyHistogram()).missing());
  }

  @Test
  void onlyFailedScrapesGiveASectionWithoutValues() {
    EngineSums sums = new EngineSums();
    assertNull(sums.view(new LatencyHistogram(), new LatencyHistogram()));
    sums.add(EngineSample.failed("http://e:8000/metrics", "vllm", 2, "refused"));
    assertEquals(
        "{\"scrapes\":0,\"failedScrapes\":2,\"resets\":0}",
        Json.MAPPER
            .valueToTree(sums.view(new LatencyHistogram(), new LatencyHistogram()))
            .toString());
  }

  /** The section a window summary carries, as JSON, and back. */
  @Test
  void aWindowSummaryCarriesTheEngineSectionBesideTheClients() {
    WindowStats stats = new WindowStats();
    stats.tpot.recordMicros(30_000, 99);
    stats.tpot.recordMicros(180_000);
    stats.ttft.recordMicros(120_000);
    EngineSums sums = new EngineSums();
    sums.add(
        new EngineSample(
            "http://e:8000/metrics",
            "vllm",
            5_000,
            1,
            0,
            null,
            null,
            0,
            histogram(BOUNDS, 0L, 99L, 0L, 1L, 0L),
            histogram(List.of(50_000L, 100_000L), 0L, 1L, 0L),
            null,
            null,
            3.0,
            0.0,
            0.12,
            2_048L,
            1_024L));
    stats.engine(sums);
    WindowSummary summary = stats.toSummary("model-a", "model-a", null, 0, 10_000);
    String json = WindowSummaryCodec.encodeToString(summary);
    String engine = json.substring(json.indexOf("\"engine\":"), json.indexOf(",\"histograms\""));
    assertEquals(
        "\"engine\":{\"scrapes\":1,\"failedScrapes\":0,\"resets\":0,"
            + "\"tpot\":{\"count\":100,\"p50Ms\":{\"loMs\":10.000,\"hiMs\":25.000},"
            + "\"p90Ms\":{\"loMs\":10.000,\"hiMs\":25.000},\"p99Ms\":{\"loMs\":10.000,\"hiMs\":25.000},"
            + "\"p999Ms\":{\"loMs\":100.000,\"hiMs\":150.000}},"
            + "\"ttft\":{\"count\":1,\"p50Ms\":{\"loMs\":50.000,\"hiMs\":100.000},"
            + "\"p90Ms\":{\"loMs\":50.000,\"hiMs\":100.000},\"p99Ms\":{\"loMs\":50.000,\"hiMs\":100.000},"
            + "\"p999Ms\":{\"loMs\":50.000,\"hiMs\":100.000}},"
            + "\"running\":{\"samples\":1,\"max\":3.0000,\"mean\":3.0000},"
            + "\"waiting\":{\"samples\":1,\"max\":0.0000,\"mean\":0.0000},"
            + "\"kvCacheUsage\":{\"samples\":1,\"max\":0.1200,\"mean\":0.1200},"
            + "\"prefixCacheHitRate\":0.5000,"
            + "\"outside\":{\"tpot\":{\"p50Ms\":{\"loMs\":5.015,\"hiMs\":20.015},"
            + "\"p99Ms\":{\"loMs\":5.015,\"hiMs\":20.015},\"p999Ms\":{\"loMs\":30.095,\"hiMs\":80.095}},"
            + "\"ttft\":{\"p50Ms\":{\"loMs\":20.063,\"hiMs\":70.063},"
            + "\"p99Ms\":{\"loMs\":20.063,\"hiMs\":70.063},\"p999Ms\":{\"loMs\":20.063,\"hiMs\":70.063}}}}",
        engine);
    assertEquals(summary, WindowSummaryCodec.decode(json));
    assertEquals(summary.engine(), stats.engineView());
    stats.reset();
    assertNull(stats.engineView());
  }

  private static byte[] bytes(EngineSums sums) {
    BinaryWriter out = new BinaryWriter();
    sums.writeTo(out);
    return out.toByteArray();
  }
}

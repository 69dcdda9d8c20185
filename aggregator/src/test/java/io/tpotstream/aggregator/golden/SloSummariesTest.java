package io.tpotstream.aggregator.golden;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.aggregator.offline.OfflineStats;
import io.tpotstream.aggregator.partial.Metric;
import io.tpotstream.aggregator.partial.WindowCounts;
import io.tpotstream.common.binary.BinaryReader;
import io.tpotstream.common.binary.BinaryWriter;
import io.tpotstream.common.request.RequestRecord;
import io.tpotstream.common.request.RequestRecords;
import io.tpotstream.common.slo.GoodputLimits;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@code slo} section on the rewritten stages: goodput counted per request in stage 1, carried
 * in the binary partial ({@link WindowCounts}) and evaluated once per final summary by the merger.
 * With an SLO the summaries are the golden ones plus their {@code slo} section, nothing else
 * changed.
 */
class SloSummariesTest {

  @Test
  void anSloAddsOnlyItsSectionAndCountsTheRequestsTheRecordsCallGood() throws IOException {
    for (GoldenEvents.Case c : GoldenEvents.cases()) {
      // a TTFT limit at the median of the case's TTFTs, so that some requests are good and some not
      List<BigDecimal> ttfts = new ArrayList<>();
      RequestRecords.fromEvents(
          c.events(),
          GoodputLimits.NONE,
          r -> {
            if (r.ttftMs() != null) {
              ttfts.add(r.ttftMs());
            }
          });
      Collections.sort(ttfts);
      BigDecimal limit = ttfts.get(ttfts.size() / 2);
      SloSpec slo =
          SloSpec.parse("tpot_p99=30ms,error_rate=10%", "ttft=" + limit.toPlainString() + "ms");
      List<WindowSummary> withSlo =
          OfflineStats.compute(
              c.events(),
              c.settings().withSlo(slo),
              p -> {
                throw new AssertionError(p);
              });
      List<String> stripped = new ArrayList<>();
      long good = 0;
      for (WindowSummary s : withSlo) {
        assertNotNull(s.slo(), c.name() + " " + s.series());
        assertEquals(2, s.slo().objectives().size());
        good += s.slo().goodRequests();
        stripped.add(WindowSummaryCodec.encodeToString(s.withSlo(null)));
      }
      assertEquals(GoldenSummariesTest.read(c.name()), stripped, c.name());

      long[] goodRecords = {0};
      RequestRecords.fromEvents(
          c.events(),
          slo.goodput(),
          (RequestRecord r) -> goodRecords[0] += Boolean.TRUE.equals(r.good()) ? 1 : 0);
      assertTrue(goodRecords[0] > 0, c.name() + ": some requests are good");
      assertTrue(goodRecords[0] < ttfts.size(), c.name() + ": some are not");
      assertEquals(goodRecords[0], good, c.name() + ": good requests, records vs summaries");
    }
  }

  @Test
  void thePartialCarriesTheGoodRequestsAndReadsTheFormatBefore() {
    WindowCounts counts = new WindowCounts();
    counts.started(3);
    counts.completedFull(3);
    counts.goodRequests(2);
    counts.latency(Metric.TTFT, 1_000, 3);
    BinaryWriter out = new BinaryWriter(64);
    counts.writeTo(out);
    byte[] bytes = out.toByteArray();
    WindowCounts read = WindowCounts.readFrom(new BinaryReader(bytes));
    assertEquals(2, read.toStats().goodRequests());
    assertEquals(3, read.toStats().ttft.count());

    // format 1 (before goodput): the same counters without the good count (nor the prompt-cache
    // sums of format 4)
    byte[] before = bytes.clone();
    before[0] = 1;
    int goodAt = 9; // [format][8 one-byte counters][good][3 one-byte prompt-cache sums]...
    int dropped = 4;
    byte[] format1 = new byte[before.length - dropped];
    System.arraycopy(before, 0, format1, 0, goodAt);
    System.arraycopy(before, goodAt + dropped, format1, goodAt, before.length - goodAt - dropped);
    WindowCounts old = WindowCounts.readFrom(new BinaryReader(format1));
    assertEquals(0, old.toStats().goodRequests());
    assertEquals(3, old.toStats().started());
    assertEquals(3, old.toStats().ttft.count());
  }
}

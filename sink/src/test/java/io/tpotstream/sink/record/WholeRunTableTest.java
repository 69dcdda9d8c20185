package io.tpotstream.sink.record;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.sink.TestWindows;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WholeRunTableTest {
  @Test
  void oneRowPerSeriesWithTheArticlesColumns() {
    WindowStats none = new WindowStats();
    none.started(1);
    none.failed("http_500", 1);
    String table =
        WholeRunTable.format(
            List.of(
                TestWindows.known("model-a", Map.of(), 0),
                TestWindows.of("model-b", Map.of(), 0, none)),
            Map.of());
    assertEquals(
        """
        Whole run, TPOT in ms (merged window histograms):
        series                   samples     mean   median      P90      P99    P99.9   P99.99      max   TTFT p50  TTFT p99   errors error rate
        model-a                      100     0.50     0.50     0.90     0.99     1.00     1.00     1.00       1.20      2.00        1     0.2000
        model-b                        0        -        -        -        -        -        -        -          -         -        1     1.0000
        Prefix cache as the server reported it (cached / prompt tokens of those requests):
        series                  requests  prompt tokens  cached tokens  hit rate
        model-a                        3           4500           2700    60.00%
        """,
        table);
  }

  @Test
  void withoutAPrefixCacheReportedThereIsNoCacheTable() {
    String table =
        WholeRunTable.format(
            List.of(TestWindows.of("m", Map.of(), 0, new WindowStats())), Map.of());
    assertEquals(false, table.contains("Prefix cache"), table);
  }

  @Test
  void theEnginesViewIsTheRangeOfItsWindowsIntervals() {
    EngineRun a = new EngineRun();
    a.add(TestWindows.knownEngine()); // TPOT p99 outside [-0.01, 0.49], TTFT [-0.5, 1]
    a.add(TestWindows.provenEngine()); // TPOT p99 outside [0.49, 0.74]: proven
    EngineRun b = new EngineRun();
    b.add(TestWindows.failedEngine(3));
    String table =
        WholeRunTable.format(
            List.of(
                TestWindows.known("model-a", Map.of(), 0),
                TestWindows.known("model-b", Map.of(), 0),
                TestWindows.known("model-c", Map.of(), 0)),
            Map.of("model-a", a, "model-b", b));

    assertEquals(
        """
        Engine as the producer scraped it; time added outside the engine at p99, ms, from the\
         lowest to the highest bound of the windows' intervals:
        series                  windows  scrapes   failed  TPOT p99 outside   TTFT p99 outside   TPOT\
         outside > 0 proven in
        model-a                       2        4        1  [-0.01, 0.74]      [-0.50, 1.00]      1 window
        model-b                       1        0        3  -                  -                  0 windows
        """,
        table.substring(table.indexOf("Engine as")));
  }

  @Test
  void anUnboundedEndStaysUnbounded() {
    assertEquals("(-inf, 0.00]", WholeRunTable.interval(TestWindows.interval(null, "0.000")));
    assertEquals("[1.00, inf)", WholeRunTable.interval(TestWindows.interval("1.000", null)));
  }
}

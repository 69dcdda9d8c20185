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
                TestWindows.of("model-b", Map.of(), 0, none)));
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
        WholeRunTable.format(List.of(TestWindows.of("m", Map.of(), 0, new WindowStats())));
    assertEquals(false, table.contains("Prefix cache"), table);
  }
}

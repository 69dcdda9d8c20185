package io.tpotstream.aggregator.stage2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tpotstream.aggregator.partial.Metric;
import io.tpotstream.aggregator.partial.SeriesName;
import io.tpotstream.aggregator.partial.WindowCounts;
import io.tpotstream.aggregator.state.MapState;
import java.util.List;
import org.junit.jupiter.api.Test;

class WindowMergerTest {
  @Test
  void aChangedPartitionCountStopsWithAClearMessage() {
    MapState state = new MapState();
    WindowMerger first = new WindowMerger(3, 10_000, 1_000);
    first.open("tpot.token-events");
    first.writeChanges(state);

    WindowMerger grown = new WindowMerger(4, 10_000, 1_000);
    grown.load(state);
    PartitionsChangedException e =
        assertThrows(PartitionsChangedException.class, () -> grown.open("tpot.token-events"));
    assertEquals(
        "partitions changed: re-aggregate with a new --application-id (topic tpot.token-events"
            + " had 3 partitions when this application id started, now 4)",
        e.getMessage());
  }

  @Test
  void aMarkerFromAnUnknownPartitionStopsTheMerge() {
    WindowMerger merger = new WindowMerger(2, 10_000, 1_000);
    merger.open("events");
    assertThrows(
        PartitionsChangedException.class,
        () -> merger.closedThrough(2, 10_000, (summary, json) -> {}));
  }

  @Test
  void itSaysWhichPartitionsAWindowWaitsFor() {
    WindowMerger merger = new WindowMerger(3, 10_000, 1_000);
    merger.open("events");
    WindowCounts counts = new WindowCounts();
    counts.latency(Metric.TPOT, 5, 1);
    merger.partial(1, 10_000, new SeriesName("m", "m", null), counts, (summary, json) -> {});
    merger.closedThrough(1, 20_000, (summary, json) -> {});
    assertEquals(List.of(0, 2), merger.waitingFor());
  }
}

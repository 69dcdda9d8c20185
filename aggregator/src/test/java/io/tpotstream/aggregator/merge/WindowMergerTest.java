package io.tpotstream.aggregator.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tpotstream.aggregator.state.MapState;
import java.util.List;
import org.junit.jupiter.api.Test;

class WindowMergerTest {
  @Test
  void aChangedPartitionCountStopsWithAClearMessage() {
    MapState merged = new MapState();
    MapState progress = new MapState();
    new WindowMerger(3, merged, progress).open("tpot.token-events");

    WindowMerger grown = new WindowMerger(4, merged, progress);
    PartitionsChangedException e =
        assertThrows(PartitionsChangedException.class, () -> grown.open("tpot.token-events"));
    assertEquals(
        "partitions changed: re-aggregate with a new --application-id (topic tpot.token-events"
            + " had 3 partitions when this application id started, now 4)",
        e.getMessage());
  }

  @Test
  void aMarkerFromAnUnknownPartitionStopsTheMerge() {
    WindowMerger merger = new WindowMerger(2, new MapState(), new MapState());
    merger.open("events");
    assertThrows(
        PartitionsChangedException.class,
        () -> merger.closedThrough(2, 10_000, (summary, json) -> {}));
  }

  @Test
  void itSaysWhichPartitionsAWindowWaitsFor() {
    WindowMerger merger = new WindowMerger(3, new MapState(), new MapState());
    merger.open("events");
    var stats = new io.tpotstream.common.summary.WindowStats();
    stats.tpot.recordMicros(5);
    merger.partial(1, stats.toSummary("m", "m", null, 10_000, 20_000), (summary, json) -> {});
    merger.closedThrough(1, 20_000, (summary, json) -> {});
    assertEquals(List.of(0, 2), merger.waitingFor());
  }
}

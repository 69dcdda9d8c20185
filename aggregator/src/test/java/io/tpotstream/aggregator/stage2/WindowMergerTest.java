package io.tpotstream.aggregator.stage2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.aggregator.partial.Metric;
import io.tpotstream.aggregator.partial.SeriesName;
import io.tpotstream.aggregator.partial.WindowCounts;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.aggregator.state.MapState;
import io.tpotstream.common.slo.SloSpec;
import java.time.Duration;
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
  void anApplicationIdRestartedWithOtherSettingsStopsWithBothSettings() {
    StageSettings started = StageSettings.defaults();
    StageSettings now = started.withWindow(Duration.ofSeconds(60)).withGroupBy(List.of("run"));
    MapState state = new MapState();
    WindowMerger first = merger(3, started);
    first.open("tpot.token-events");
    first.writeChanges(state);

    WindowMerger restarted = merger(3, now);
    restarted.load(state);
    SettingsChangedException e =
        assertThrows(SettingsChangedException.class, () -> restarted.open("tpot.token-events"));
    assertEquals(
        "settings changed: this application id was started with --window 10s --grace 0s"
            + " --group-by (none) --slo (none); now --window 1m --grace 0s --group-by run --slo"
            + " (none): use a new --application-id, or the same settings",
        e.getMessage());
  }

  @Test
  void anApplicationIdRestartedWithTheSameSettingsGoesOn() {
    StageSettings settings =
        StageSettings.defaults()
            .withGroupBy(List.of("concurrency", "run"))
            .withSlo(SloSpec.parse("tpot_p99=50ms,error_rate=1%", null));
    MapState state = new MapState();
    WindowMerger first = merger(2, settings);
    first.open("events");
    first.writeChanges(state);

    StageSettings reordered =
        settings
            .withGroupBy(List.of("run", "concurrency"))
            .withSlo(SloSpec.parse("error_rate=1%,tpot_p99=50ms", null));
    WindowMerger restarted = merger(2, reordered);
    restarted.load(state);
    restarted.open("events");
    restarted.writeChanges(state);
    WindowMerger again = merger(2, settings);
    again.load(state);
    again.open("events");
  }

  @Test
  void aStateWrittenBeforeSettingsWereKeptTakesTheCurrentOnes() {
    MapState state = new MapState();
    WindowMerger old = new WindowMerger(1, 10_000, 1_000);
    old.open("events");
    old.writeChanges(state);

    WindowMerger first = merger(1, StageSettings.defaults().withGrace(Duration.ofSeconds(2)));
    first.load(state);
    first.open("events");
    first.writeChanges(state);
    WindowMerger other = merger(1, StageSettings.defaults());
    other.load(state);
    SettingsChangedException e =
        assertThrows(SettingsChangedException.class, () -> other.open("events"));
    assertTrue(e.getMessage().contains("started with --window 10s --grace 2s"), e.getMessage());
  }

  private static WindowMerger merger(int partitions, StageSettings settings) {
    return new WindowMerger(
        partitions,
        settings.windowMs(),
        settings.clientLagThresholdUs(),
        settings.slo(),
        StateSettings.of(settings));
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

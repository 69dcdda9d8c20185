package io.tpotstream.aggregator.stage2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.aggregator.partial.Metric;
import io.tpotstream.aggregator.partial.SeriesName;
import io.tpotstream.aggregator.partial.WindowCounts;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.aggregator.state.MapState;
import io.tpotstream.common.binary.BinaryReader;
import io.tpotstream.common.binary.BinaryWriter;
import io.tpotstream.common.slo.SloSpec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
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
            + " --group-by (none) --slo (none) --request-timeout 10m --producer-timeout 1m"
            + " --client-lag-threshold 1ms --max-clock-skew 5m; now --window 1m --grace 0s"
            + " --group-by run --slo (none) --request-timeout 10m --producer-timeout 1m"
            + " --client-lag-threshold 1ms --max-clock-skew 5m: use a new --application-id, or"
            + " the same settings",
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

  /**
   * Partials kept in their binary form (as stage 2 reads the internal topic) and added up in one
   * sum, series after series and window after window, give exactly the summaries that a new merger
   * gives each window alone from the partials' counts.
   */
  @Test
  void partialsKeptAsBytesGiveTheSummariesOfTheirCounts() {
    WindowMerger reusing = new WindowMerger(2, 10_000, 1_000);
    reusing.open("events");
    Random random = new Random(11);
    for (int w = 0; w < 6; w++) {
      long start = w * 10_000L;
      WindowMerger alone = new WindowMerger(2, 10_000, 1_000);
      alone.open("events");
      List<String> got = new ArrayList<>();
      List<String> expected = new ArrayList<>();
      List<String> series = w % 2 == 0 ? List.of("a", "b", "c") : List.of("b");
      for (String s : series) {
        SeriesName name = new SeriesName(s, s, null);
        for (int p = 0; p < 2; p++) {
          WindowCounts counts = new WindowCounts();
          for (int i = 0; i < 2_000; i++) {
            counts.latency(Metric.TPOT, (long) Math.exp(9 + random.nextGaussian()), 1);
          }
          if (random.nextBoolean()) {
            counts.latency(Metric.TTFT, 100_000 + random.nextInt(50_000), 1);
            counts.failed("http_503", 1);
          }
          counts.started(1 + random.nextInt(4));
          BinaryWriter out = new BinaryWriter();
          counts.writeTo(out);
          byte[] bytes = out.toByteArray();
          byte[] record = new byte[bytes.length + 3]; // counts at the end of a longer record
          System.arraycopy(bytes, 0, record, 3, bytes.length);
          reusing.partial(p, start, name, record, 3, (summary, json) -> {});
          alone.partial(p, start, name, counts, (summary, json) -> {});
        }
      }
      for (int p = 0; p < 2; p++) {
        reusing.closedThrough(p, start + 10_000, (summary, json) -> got.add(text(json)));
        alone.closedThrough(p, start + 10_000, (summary, json) -> expected.add(text(json)));
      }
      assertEquals(series.size(), got.size(), "window " + w);
      assertEquals(expected, got, "window " + w);
    }
  }

  private static String text(byte[] json) {
    return new String(json, StandardCharsets.UTF_8);
  }

  /**
   * A merger restarted from its store mid-window (one series with partials from both partitions,
   * one with a single partial, then a partial after the restart) emits what one that never stopped
   * emits; each series is stored as one sum, whatever the partials.
   */
  @Test
  void aRestartedMergerEmitsWhatOneThatNeverStoppedEmits() {
    WindowMerger steady = new WindowMerger(2, 10_000, 1_000);
    WindowMerger first = new WindowMerger(2, 10_000, 1_000);
    steady.open("events");
    first.open("events");
    Random random = new Random(5);
    List<WindowCounts> partials = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      WindowCounts counts = new WindowCounts();
      for (int k = 0; k < 500; k++) {
        counts.latency(Metric.TPOT, (long) Math.exp(9 + random.nextGaussian()), 1);
      }
      counts.failed("timeout", i);
      partials.add(counts);
    }
    SeriesName a = new SeriesName("a", "a", null);
    SeriesName b = new SeriesName("b", "b", null);
    for (WindowMerger m : List.of(steady, first)) {
      m.partial(0, 0, a, partials.get(0), (summary, json) -> {});
      m.partial(1, 0, a, partials.get(1), (summary, json) -> {});
      m.partial(0, 0, b, partials.get(2), (summary, json) -> {});
    }
    MapState state = new MapState();
    first.writeChanges(state);
    state.forEach(
        (key, value) -> {
          if (key.get()[0] == 'w') { // a series: its name, then exactly one WindowCounts
            BinaryReader in = new BinaryReader(value);
            SeriesName.readFrom(in);
            WindowCounts.readFrom(in);
            assertFalse(in.hasRemaining(), "one sum per series");
          }
        });
    WindowMerger restarted = new WindowMerger(2, 10_000, 1_000);
    restarted.load(state);
    restarted.open("events");
    steady.partial(1, 0, b, partials.get(3), (summary, json) -> {});
    restarted.partial(1, 0, b, partials.get(3), (summary, json) -> {});
    restarted.writeChanges(state); // the restored sum and the new partial, written as one
    List<String> expected = new ArrayList<>();
    List<String> got = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      steady.closedThrough(p, 10_000, (summary, json) -> expected.add(text(json)));
      restarted.closedThrough(p, 10_000, (summary, json) -> got.add(text(json)));
    }
    assertEquals(2, got.size());
    assertEquals(expected, got);
  }

  /**
   * A partial whose counts do not read (truncated on the internal topic) is kept as it came, then
   * fails the next commit with the reader's message: it never enters the store.
   */
  @Test
  void aPartialThatDoesNotReadFailsTheCommitAndNeverEntersTheStore() {
    WindowMerger merger = new WindowMerger(1, 10_000, 1_000);
    merger.open("events");
    WindowCounts counts = new WindowCounts();
    counts.latency(Metric.TPOT, 20_000, 1);
    counts.latency(Metric.TTFT, 150_000, 1);
    BinaryWriter out = new BinaryWriter();
    counts.writeTo(out);
    byte[] whole = out.toByteArray();
    byte[] truncated = Arrays.copyOf(whole, whole.length - 2);
    MapState state = new MapState();
    merger.partial(0, 0, new SeriesName("a", "a", null), whole, 0, (summary, json) -> {});
    merger.partial(0, 0, new SeriesName("b", "b", null), truncated, 0, (summary, json) -> {});
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> merger.writeChanges(state));
    assertTrue(e.getMessage().startsWith("truncated record"), e.getMessage());
    state.forEach(
        (key, value) ->
            assertFalse(
                key.get()[0] == 'w' && new String(key.get(), StandardCharsets.UTF_8).endsWith("b"),
                "series b stored"));
  }
}

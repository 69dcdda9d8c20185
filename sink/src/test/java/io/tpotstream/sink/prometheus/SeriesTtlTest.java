package io.tpotstream.sink.prometheus;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tpotstream.sink.TestWindows;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A finished series leaves /metrics after its time to live, so the cap is about live series. */
class SeriesTtlTest {
  private static List<String> models(PrometheusView view) {
    return view.read(all -> all.stream().map(s -> s.labels.get("model")).toList());
  }

  @Test
  void aSeriesWithoutANewWindowForItsTtlLeavesAndMakesRoomForALiveOne() {
    AtomicLong nowMs = new AtomicLong(1_000_000);
    PrometheusView view = new PrometheusView(2, Duration.ofMinutes(60), nowMs::get);
    view.add(TestWindows.summary("finished", Map.of(), 0));
    view.add(TestWindows.summary("live", Map.of(), 0));
    view.add(TestWindows.summary("new", Map.of(), 0)); // over the cap: dropped and counted
    assertEquals(List.of("finished", "live"), models(view));
    assertEquals(1, view.dropped(PrometheusView.Dropped.SERIES_LIMIT));

    nowMs.addAndGet(Duration.ofMinutes(40).toMillis());
    view.add(TestWindows.summary("live", Map.of(), 1));
    nowMs.addAndGet(Duration.ofMinutes(20).toMillis()); // finished: 60 min, not more
    assertEquals(List.of("finished", "live"), models(view));
    nowMs.addAndGet(1);
    assertEquals(List.of("live"), models(view));

    view.add(TestWindows.summary("new", Map.of(), 1));
    assertEquals(List.of("live", "new"), models(view));
    assertEquals(2, view.seriesShown());
  }

  @Test
  void aZeroTtlKeepsEverySeries() {
    AtomicLong nowMs = new AtomicLong(0);
    PrometheusView view = new PrometheusView(10, Duration.ZERO, nowMs::get);
    view.add(TestWindows.summary("a", Map.of(), 0));
    nowMs.addAndGet(Duration.ofDays(365).toMillis());
    assertEquals(List.of("a"), models(view));
  }
}

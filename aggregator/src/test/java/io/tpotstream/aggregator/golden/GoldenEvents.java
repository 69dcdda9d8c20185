package io.tpotstream.aggregator.golden;

import io.tpotstream.aggregator.fixtures.Req;
import io.tpotstream.aggregator.fixtures.SyntheticLoad;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.common.event.TokenEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Event sets whose summaries were recorded from the aggregator as it was before issue 13 (files
 * under {@code golden/}): the rewrite must give the same bytes. Never change these generators.
 */
final class GoldenEvents {
  static final long T0 = 1_700_000_000_000L;

  record Case(String name, List<TokenEvent> events, StageSettings settings) {}

  private GoldenEvents() {}

  static List<Case> cases() {
    return List.of(
        new Case(
            "synthetic-400",
            SyntheticLoad.events(42, T0, 400),
            StageSettings.defaults().withGroupBy(List.of("concurrency"))),
        new Case(
            "synthetic-3000-5s",
            SyntheticLoad.events(7, T0, 3000, 13),
            StageSettings.defaults()
                .withWindow(Duration.ofSeconds(5))
                .withGroupBy(List.of("concurrency", "run"))),
        new Case(
            "edges", edges(), StageSettings.defaults().withRequestTimeout(Duration.ofSeconds(30))));
  }

  private static long ms(long millis) {
    return millis * 1_000_000L;
  }

  /** Schedule lag, multi-token chunks, errors, repeats, clamps, stale producers, abandonment. */
  static List<TokenEvent> edges() {
    List<TokenEvent> events = new ArrayList<>();
    events.add(Req.heartbeat(T0, "p1", T0, 1_234));
    events.add(Req.heartbeat(T0, "p-slow", T0));
    for (int i = 0; i < 30; i++) {
      Req r = new Req("r" + i, "model-" + (i % 3), Map.of("concurrency", "" + (i % 2)), "p1");
      long ts = T0 + i * 900L;
      events.add(r.start(ts, 1_000_000L * i));
      for (int k = 0; k < 20; k++) {
        events.add(
            r.token(
                ts + 50 + k * 40L,
                ms(50) + k * 40_000_000L + (k * 7919L % 3000) * 1000,
                k % 4 == 0 ? 2 : null));
        if (k == 7) {
          // a repeated chunk event: counted once
          events.add(events.get(events.size() - 1));
        }
      }
      events.add(
          i % 7 == 0
              ? r.error(ts + 1_000, ms(1_000), i % 2 == 0 ? "timeout_idle" : "http_5xx")
              : i % 5 == 0 ? r.end(ts + 1_000, ms(1_000), 31) : r.end(ts + 1_000, ms(1_000)));
      events.add(Req.heartbeat(ts + 1_000, "p1", ts + 800, 500 + i * 97L));
    }
    // a clock gone wild: a gap of two hours is clamped
    Req wild = new Req("wild", "model-0", Map.of(), "p1");
    events.add(wild.start(T0 + 28_000));
    events.add(wild.token(T0 + 28_010, ms(10)));
    events.add(wild.token(T0 + 28_020, ms(10) + 7_200_000_000_000L));
    events.add(wild.end(T0 + 28_030, ms(20) + 7_200_000_000_000L));
    // a slow producer whose request is left open: abandoned after 30 s of silence
    Req slow = new Req("slow-1", "model-1", Map.of(), "p-slow");
    events.add(slow.start(T0 + 100));
    events.add(slow.token(T0 + 200, ms(100)));
    // a request with one chunk: too short
    Req shortOne = new Req("short", "model-2", Map.of(), "p1");
    events.add(shortOne.start(T0 + 29_000));
    events.add(shortOne.token(T0 + 29_100, ms(100)));
    events.add(shortOne.end(T0 + 29_200, ms(200)));
    // p1 runs on for 70 s: p-slow becomes stale, its late chunks are counted late
    for (long s = 30; s <= 100; s++) {
      events.add(Req.heartbeat(T0 + s * 1000, "p1", T0 + s * 1000 - 200, s * 11));
      if (s == 80) {
        events.add(slow.token(T0 + 300, ms(200)));
        events.add(slow.token(T0 + 400, ms(300)));
      }
    }
    events.add(Req.finalHeartbeat(T0 + 100_500, "p1", T0 + 100_500));
    return events;
  }
}

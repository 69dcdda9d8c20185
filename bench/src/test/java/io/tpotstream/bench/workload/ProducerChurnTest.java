package io.tpotstream.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.aggregator.offline.OfflineStats;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.summary.WindowSummary;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class ProducerChurnTest {
  static final long BASE_MS = 1_767_225_600_000L;

  @Test
  void producersComeAndGoInOrderAndTheExpectedWindowsAreWhatStatsEmits() {
    StageSettings settings = StageSettings.defaults().withGroupBy(List.of(ProducerChurn.LABEL));
    ProducerChurn churn =
        new ProducerChurn(
            30,
            Duration.ofMinutes(10),
            BASE_MS,
            3,
            settings.windowSize(),
            settings.requestTimeout(),
            44);
    List<ProducerChurn.ProducerLog> logs = new ArrayList<>();
    List<TokenEvent> events = new ArrayList<>();
    long lastTs = 0;
    int finals = 0;
    for (int i = 0; i < churn.producers(); i++) {
      ProducerChurn.ProducerLog log = churn.producer(i);
      logs.add(log);
      long watermark = Long.MIN_VALUE;
      for (ProducerChurn.Sent s : log.records()) {
        TokenEvent e = s.event();
        assertTrue(e.ts() >= lastTs, "in timestamp order");
        lastTs = e.ts();
        if (e.type() == EventType.HEARTBEAT) {
          assertTrue(s.partition() >= 0 && s.partition() < 3);
          watermark = Math.max(watermark, e.watermark());
          finals += Boolean.TRUE.equals(e.isFinal()) ? 1 : 0;
        } else {
          assertEquals(-1, s.partition());
          assertTrue(e.ts() >= watermark, "no event below a watermark already sent");
        }
        events.add(e);
      }
    }
    assertEquals(27 * 3, finals, "every 10th producer has no final heartbeat");

    List<WindowSummary> out =
        OfflineStats.compute(
            events,
            settings,
            problem -> {
              throw new AssertionError(problem);
            });

    Set<String> emitted = new TreeSet<>();
    for (WindowSummary w : out) {
      emitted.add(ProducerChurn.key(w.series(), w.windowStartMs()));
      assertEquals(0, w.lateSamples(), w.series());
    }
    assertEquals(churn.seriesWindows(logs), emitted);
    assertEquals(30, out.stream().map(WindowSummary::series).distinct().count());
    assertEquals(3, out.stream().mapToLong(w -> w.requests().abandoned()).sum());
  }
}

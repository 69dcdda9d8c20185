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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SyntheticWorkloadTest {
  static final Duration WINDOW = Duration.ofSeconds(10);
  static final long BASE_MS = 1_767_225_600_000L;

  record Sent(TokenEvent event, int partition) {}

  static List<Sent> generate(WorkloadShape shape, SyntheticWorkload.Summary[] summary) {
    List<Sent> sent = new ArrayList<>();
    summary[0] =
        new SyntheticWorkload(shape, WINDOW, BASE_MS).generate((e, p) -> sent.add(new Sent(e, p)));
    return sent;
  }

  @Test
  void everyRequestIsCompleteInOrderAndTheSummaryCountsWhatWasSent() {
    SyntheticWorkload.Summary[] summary = new SyntheticWorkload.Summary[1];
    List<Sent> sent = generate(WorkloadShape.chat(60_000, 3), summary);
    SyntheticWorkload.Summary s = summary[0];

    assertEquals(sent.size(), s.records());
    long events = s.records() - s.heartbeats();
    assertTrue(events <= 60_000 && events > 59_000, "events: " + events);
    Map<String, Integer> nextSeq = new HashMap<>();
    Map<String, Boolean> open = new HashMap<>();
    long starts = 0;
    long tokens = 0;
    long heartbeats = 0;
    long lastTs = 0;
    long watermark = Long.MIN_VALUE;
    for (Sent x : sent) {
      TokenEvent e = x.event();
      assertTrue(e.ts() >= lastTs, "in timestamp order");
      lastTs = e.ts();
      if (e.type() == EventType.HEARTBEAT) {
        heartbeats++;
        assertTrue(x.partition() >= 0 && x.partition() < 3);
        watermark = Math.max(watermark, e.watermark());
        continue;
      }
      assertEquals(-1, x.partition(), "events are keyed, not placed");
      assertTrue(e.ts() >= watermark, "no event below a watermark already sent");
      switch (e.type()) {
        case START -> {
          starts++;
          assertEquals(null, open.put(e.requestId(), true));
          nextSeq.put(e.requestId(), 0);
        }
        case TOKEN -> {
          tokens++;
          assertEquals(nextSeq.get(e.requestId()), e.seq());
          nextSeq.put(e.requestId(), e.seq() + 1);
        }
        default -> {
          assertEquals(nextSeq.get(e.requestId()), e.seq(), "end/error carry the chunk count");
          open.remove(e.requestId());
        }
      }
    }
    assertTrue(open.isEmpty(), "every request ended: " + open.keySet());
    assertEquals(s.requests(), starts);
    assertEquals(s.tokenEvents(), tokens);
    assertEquals(s.heartbeats(), heartbeats);
    TokenEvent last = sent.get(sent.size() - 1).event();
    assertTrue(last.finalHeartbeat());
    long finals = sent.stream().filter(x -> x.event().finalHeartbeat()).count();
    assertEquals(3, finals, "a final heartbeat to every partition");
  }

  @Test
  void theAggregatorLogicEmitsExactlyTheSeriesWindowsTheBenchmarkWaitsFor() {
    SyntheticWorkload.Summary[] summary = new SyntheticWorkload.Summary[1];
    List<Sent> sent = generate(WorkloadShape.chat(40_000, 1), summary);
    List<TokenEvent> events = sent.stream().map(Sent::event).toList();

    List<WindowSummary> out =
        OfflineStats.compute(
            events,
            StageSettings.defaults().withWindow(WINDOW),
            problem -> {
              throw new AssertionError(problem);
            });

    assertEquals(summary[0].seriesWindows(), out.size());
    long inLast = out.stream().filter(w -> w.windowEndMs() == summary[0].lastWindowEndMs()).count();
    assertEquals(summary[0].seriesInLastWindow(), inLast);
    assertEquals(summary[0].lastWindowEndMs(), out.get(out.size() - 1).windowEndMs());
    long tpotSamples = out.stream().mapToLong(w -> w.tpot().count()).sum();
    long requestsWithGaps = summary[0].requests();
    assertEquals(summary[0].tokenEvents() - requestsWithGaps, tpotSamples);
  }

  @Test
  void shortRequestsHaveFourEventsEach() {
    SyntheticWorkload.Summary[] summary = new SyntheticWorkload.Summary[1];
    generate(WorkloadShape.shortRequests(5_000, 3), summary);
    SyntheticWorkload.Summary s = summary[0];

    assertEquals(5_000, s.requests());
    assertEquals(10_000, s.tokenEvents());
    assertEquals(20_000 + s.heartbeats(), s.records());
  }
}

package io.tpotstream.producer.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.producer.config.WarmupBudget;
import io.tpotstream.producer.dialect.Dialect;
import io.tpotstream.producer.http.RequestSpec;
import io.tpotstream.producer.testing.Runs;
import io.tpotstream.producer.workload.Sessions;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A timed warm-up lasts its time and then until the JIT has settled, at most a minute more; the
 * run's own requests follow, as many as asked, models interleaved.
 */
class TicketsTest {
  static final long S = 1_000_000_000L;

  private static Tickets tickets(String warmup, String totalRequests) {
    return tickets(warmup, totalRequests, Set.of());
  }

  private static Tickets tickets(String warmup, String totalRequests, Set<String> stopped) {
    var config =
        Runs.config(
            Map.of(
                "base_url", "http://h",
                "models", "a,b",
                "run_id", "r",
                "warmup", warmup,
                "total_requests", totalRequests));
    return new Tickets(
        config,
        Dialect.of(config.api()),
        new Sessions(config.prompts().conversations(), config.models()),
        stopped::contains);
  }

  @Test
  void aTimedWarmupWaitsForTheJitAfterItsTime() {
    Tickets t = tickets("10s", "2");
    t.start(0);
    assertEquals("r-w0", t.next(1 * S, null).spec().requestId());
    assertFalse(t.endWarmupIfSettled(5 * S, true, 0), "not before its time");
    assertFalse(t.endWarmupIfSettled(11 * S, false, 0), "not while the JIT compiles");
    assertEquals("r-w1", t.next(12 * S, null).spec().requestId());
    assertTrue(t.endWarmupIfSettled(13 * S, true, 0));
    assertEquals(new LoadRunner.WarmupEnd(Duration.ofSeconds(13), true, 0, null), t.warmupEnd());
    RequestSpec first = t.next(14 * S, null).spec();
    assertEquals("r-0", first.requestId());
    assertFalse(first.warmup());
    assertEquals("a", first.model());
    assertEquals("b", t.next(14 * S, null).spec().model());
    assertEquals("r-2", t.next(15 * S, null).spec().requestId());
    assertEquals("r-3", t.next(15 * S, null).spec().requestId());
    assertNull(t.next(16 * S, null), "2 requests per model, 2 models: 4");
  }

  @Test
  void aWarmupThatNeverSettlesEndsAMinuteAfterItsTime() {
    Tickets t = tickets("10s", "1");
    t.start(0);
    assertFalse(t.endWarmupIfSettled(69 * S, false, 0));
    assertTrue(t.endWarmupIfSettled(70 * S, false, 0));
    assertEquals(new LoadRunner.WarmupEnd(Duration.ofSeconds(70), false, 0, null), t.warmupEnd());
    assertEquals("r-0", t.next(70 * S, null).spec().requestId());
  }

  @Test
  void aLocalWarmupEndsWhenItsChunksAreSpentATenthOfTheRun() {
    // 2 models x 500 requests x 256 max_tokens (the default): 256,000 chunks, 25,600 to warm up
    Tickets t = tickets("local", "500");
    t.start(0);
    assertEquals(new WarmupBudget(Duration.ofSeconds(10), 25_600), t.warmupBudget());
    assertFalse(t.endWarmupIfSettled(1 * S, false, 25_599));
    assertTrue(t.endWarmupIfSettled(2 * S, false, 25_600));
    assertEquals(
        new LoadRunner.WarmupEnd(Duration.ofSeconds(2), false, 25_600, t.warmupBudget()),
        t.warmupEnd());
    assertEquals("r-0", t.next(2 * S, null).spec().requestId());
  }

  @Test
  void aLocalWarmupEndsAtItsTimeOrOnceTheJitHasSettled() {
    Tickets late = tickets("local", "100000");
    late.start(0);
    assertFalse(late.endWarmupIfSettled(9 * S, false, 50_000));
    assertTrue(late.endWarmupIfSettled(10 * S, false, 50_000), "10 s at most");
    Tickets settled = tickets("local", "100000");
    settled.start(0);
    assertTrue(settled.endWarmupIfSettled(3 * S, true, 10_000), "no least time");
  }

  @Test
  void noWarmupMeansTheFirstRequestIsMeasured() {
    Tickets t = tickets("0", "1");
    t.start(0);
    assertEquals("r-0", t.next(0, null).spec().requestId());
    assertNull(t.warmupEnd());
  }

  @Test
  void aStoppedModelGetsNoMoreRequestsAndTheOthersGetAllOfTheirs() {
    Set<String> stopped = new HashSet<>();
    Tickets t = tickets("0", "5", stopped);
    t.start(0);
    assertEquals("a", t.next(0, null).spec().model());
    assertEquals("b", t.next(0, null).spec().model());
    stopped.add("b"); // after its first request: its other 4 leave the plan
    int a = 1;
    for (Tickets.Ticket next = t.next(0, null); next != null; next = t.next(0, null)) {
      assertEquals("a", next.spec().model());
      a++;
    }
    assertEquals(5, a, "model a's requests, all of them");
  }

  @Test
  void whenEveryModelIsStoppedNothingIsHandedOut() {
    Tickets t = tickets("2req", "5", Set.of("a", "b"));
    t.start(0);
    assertNull(t.next(0, null), "not even a warm-up request");
  }
}

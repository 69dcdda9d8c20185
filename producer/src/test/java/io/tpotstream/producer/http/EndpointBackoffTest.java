package io.tpotstream.producer.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.producer.http.EndpointBackoff.Outcome;
import org.junit.jupiter.api.Test;

/** An endpoint that does not answer gets one try per interval, the interval doubling to its cap. */
class EndpointBackoffTest {
  private static final long MS = 1_000_000L;

  @Test
  void anAnsweringEndpointIsNeverHeldBack() {
    EndpointBackoff b = new EndpointBackoff();
    for (int i = 0; i < 100; i++) {
      assertEquals(0, b.admit(i * MS));
      b.ended(i % 2 == 0 ? Outcome.ANSWERED : Outcome.OTHER, i * MS);
    }
    assertFalse(b.state(100 * MS).backingOff());
    assertEquals(0, b.state(100 * MS).backoffs());
  }

  @Test
  void oneTryPerIntervalTheIntervalDoublingUpToItsCap() {
    EndpointBackoff b = new EndpointBackoff();
    long now = 0;
    // four calls in flight when the endpoint went away: one interval, not four doublings
    for (int i = 0; i < 4; i++) {
      assertEquals(0, b.admit(now));
    }
    for (int i = 0; i < 4; i++) {
      b.ended(Outcome.UNREACHABLE, now);
    }
    assertEquals(EndpointBackoff.FIRST_MS, b.state(now).intervalMs());
    long expected = EndpointBackoff.FIRST_MS;
    int tries = 4;
    // a minute of workers asking every millisecond
    for (now = 0; now < 60_000 * MS; now += MS) {
      if (b.admit(now) == 0) {
        tries++;
        assertTrue(b.admit(now) > 0, "one probe at a time");
        b.ended(Outcome.UNREACHABLE, now);
        expected = Math.min(2 * expected, EndpointBackoff.MAX_MS);
        assertEquals(expected, b.state(now).intervalMs());
      }
    }
    // at 0.25, 0.75, 1.75, 3.75, 7.75 s, then every 8 s to 55.75 s: 4 + 11 tries in a minute
    assertEquals(15, tries);
    assertEquals(15, b.state(now).failedTries());
    assertEquals(1, b.state(now).backoffs());
  }

  @Test
  void anyAnswerEndsTheBackoffAndAProbeThatEndsOtherwiseLetsTheNextOneTry() {
    EndpointBackoff b = new EndpointBackoff();
    b.ended(Outcome.UNREACHABLE, 0);
    long at = EndpointBackoff.FIRST_MS * MS;
    assertEquals(at, b.admit(0), "the whole interval to wait");
    assertEquals(0, b.admit(at), "the probe");
    b.ended(Outcome.OTHER, at); // cancelled: it said nothing about the endpoint
    assertEquals(0, b.admit(at), "the next probe, at once");
    b.ended(Outcome.ANSWERED, at); // an HTTP status, even an error: the endpoint is there
    assertEquals(0, b.admit(at));
    assertEquals(0, b.admit(at));
    assertFalse(b.state(at).backingOff());
    assertEquals(0, b.state(at).failedTries());
  }
}

package io.tpotstream.bench.fidelity;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenKind;
import io.tpotstream.simulator.truth.GroundTruth;
import io.tpotstream.simulator.truth.RequestRecorder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DistortionTest {
  static final long MS = 1_000_000L;

  @Test
  void distortionIsMeasuredGapMinusSentGapForTheSameRequestAndSeq() {
    // sent at 100, 120, 140 and 160 ms
    GroundTruth truth = sentEvery20Ms("r-1", 100 * MS, 4);
    EventsTopic events = new EventsTopic();
    // measured gaps 20.1, 19.9 and 20.3 ms against 20 ms sent: +0.1, -0.1, +0.3 ms
    long[] measuredNs = {150 * MS, 170_100_000L, 190_000_000L, 210_300_000L};
    events.add(TokenEvent.start(1000, "run", "r-1", "m", Map.of(), null, "p"));
    for (int seq = 0; seq < measuredNs.length; seq++) {
      events.add(token("r-1", seq, measuredNs[seq]));
    }
    events.add(token("r-unknown", 0, 5 * MS));

    Distortion d = Distortion.of(events, truth);

    assertEquals(3, d.pairs);
    assertEquals(1, d.requestsMatched);
    assertEquals(1, d.requestsWithoutTruth);
    assertEquals(2, d.positive);
    assertEquals(300_000, d.maxPositiveNs);
    assertEquals(-100_000, d.maxNegativeNs);
    assertEquals(300_000, d.sumNs);
    assertEquals(100, d.absolute.percentileMicros(50));
    assertEquals(300, d.absolute.maxMicros());
  }

  @Test
  void aChunkMissingOnEitherSideGivesNoSample() {
    GroundTruth truth = sentEvery20Ms("r-2", 0, 4);
    EventsTopic events = new EventsTopic();
    events.add(token("r-2", 0, 0));
    events.add(token("r-2", 1, 20 * MS));
    events.add(token("r-2", 3, 60 * MS));

    Distortion d = Distortion.of(events, truth);

    assertEquals(1, d.pairs, "only seq 0 to 1: seq 2 was not measured");
    assertEquals(0, d.absolute.maxMicros());
  }

  /**
   * The simulator's truth for one request of {@code chunks} chunks, 20 ms apart from {@code
   * firstNs}.
   */
  private static GroundTruth sentEvery20Ms(String requestId, long firstNs, int chunks) {
    GroundTruth truth = new GroundTruth(1, 100, null);
    RequestRecorder sent = truth.begin(requestId, "m", 0);
    for (int seq = 0; seq < chunks; seq++) {
      long sentNs = firstNs + seq * 20 * MS;
      sent.chunk(seq, 20 * MS, sentNs, sentNs, 1);
    }
    return truth;
  }

  private static TokenEvent token(String requestId, int seq, long elapsedNs) {
    return token(1000 + seq, requestId, seq, elapsedNs);
  }

  private static TokenEvent token(long ts, String requestId, int seq, long elapsedNs) {
    return TokenEvent.token(
        ts, "run", requestId, "m", Map.of(), elapsedNs, seq, 1, TokenKind.CONTENT, "p");
  }

  @Test
  void distortedGapsAreCheckedAgainstTheClientsOwnLagOnTheirChunks() {
    GroundTruth truth = sentEvery20Ms("r-3", 0, 5);
    EventsTopic events = new EventsTopic();
    // gaps of 25, 20, 35 and 20 ms against 20 ms sent: +5 ms, 0, +15 ms, 0
    long[] measuredNs = {0, 25 * MS, 45 * MS, 80 * MS, 100 * MS};
    // the client's lag touched the first gap (+5 ms) and the fourth (not distorted)
    long[] lagUs = {0, 5_000, 0, 0, 2_000};
    for (int seq = 0; seq < measuredNs.length; seq++) {
      events.add(token("r-3", seq, measuredNs[seq]).withClientLag(lagUs[seq]));
    }

    Distortion d = Distortion.of(events, truth);

    assertEquals(4, d.pairs);
    assertEquals(2, d.distorted, "two gaps off by more than 1 ms");
    assertEquals(1, d.distortedTouched, "one of them touched by the client's own lag");
    assertEquals(2, d.touched);
    assertEquals(1, d.touchedDistorted, "the other touched gap was not distorted");
  }

  @Test
  void anotherClientsArrivalsAreComparedTheSameWay() {
    GroundTruth truth = sentEvery20Ms("py-0", 0, 3);
    Distortion d =
        Distortion.ofArrivals(
            Map.of("py-0", new long[] {7 * MS, 29 * MS, 47 * MS}, "py-9", new long[] {1}), truth);
    assertEquals(2, d.pairs);
    assertEquals(1, d.requestsWithoutTruth);
    assertEquals(2000, d.absolute.maxMicros());
    assertEquals(0, d.distorted, "no heartbeats: not judged");
  }
}

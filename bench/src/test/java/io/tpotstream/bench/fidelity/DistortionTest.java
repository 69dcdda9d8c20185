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
    GroundTruth truth = new GroundTruth(1, 100, null);
    RequestRecorder sent = truth.begin("r-1", "m", 0);
    long[] sentNs = {100 * MS, 120 * MS, 140 * MS, 160 * MS};
    for (int seq = 0; seq < sentNs.length; seq++) {
      sent.chunk(seq, 20 * MS, sentNs[seq], sentNs[seq], 1);
    }
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
    GroundTruth truth = new GroundTruth(1, 100, null);
    RequestRecorder sent = truth.begin("r-2", "m", 0);
    for (int seq = 0; seq < 4; seq++) {
      sent.chunk(seq, 20 * MS, seq * 20 * MS, seq * 20 * MS, 1);
    }
    EventsTopic events = new EventsTopic();
    events.add(token("r-2", 0, 0));
    events.add(token("r-2", 1, 20 * MS));
    events.add(token("r-2", 3, 60 * MS));

    Distortion d = Distortion.of(events, truth);

    assertEquals(1, d.pairs, "only seq 0 to 1: seq 2 was not measured");
    assertEquals(0, d.absolute.maxMicros());
  }

  private static TokenEvent token(String requestId, int seq, long elapsedNs) {
    return TokenEvent.token(
        1000 + seq, "run", requestId, "m", Map.of(), elapsedNs, seq, 1, TokenKind.CONTENT, "p");
  }
}

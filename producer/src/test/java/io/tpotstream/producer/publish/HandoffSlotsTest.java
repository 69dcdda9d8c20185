package io.tpotstream.producer.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tpotstream.producer.config.ApiKind;
import io.tpotstream.producer.dialect.Dialect;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The ring's entries return to a small size once read, whatever the events they carried. */
class HandoffSlotsTest {
  @Test
  void entriesThatCarried2MbEventsLetTheirArraysGoOnceRead() {
    Handoff handoff = new Handoff(8);
    Recorder recorder =
        new Recorder(
            "run",
            "producer",
            Recorder.SOURCE,
            new TreeMap<>(),
            AnchoredClock.start(),
            Duration.ofMinutes(1),
            Duration.ofMinutes(1),
            "http://127.0.0.1/v1/chat/completions",
            text -> text,
            outcome -> {});
    OutageBuffer out = new OutageBuffer(1000, OutagePolicy.drop());
    MeasuredRequest request =
        new MeasuredRequest(
            "r1",
            "m",
            false,
            null,
            Dialect.of(ApiKind.OPENAI).newReader(),
            () -> {},
            new TreeMap<>());
    request.started(System.nanoTime());
    handoff.start(request);
    byte[] large = chunk("A".repeat(2_000_000));
    byte[] small = chunk("hi");
    for (int i = 0; i < 7; i++) {
      byte[] event = i % 2 == 0 ? large : small;
      handoff.event(request, event, 0, event.length, System.nanoTime(), i + 1, 0);
    }
    assertEquals(4L * large.length + 3 * 256, handoff.retainedBytes(), "each held as it came");

    assertEquals(8, handoff.drain(100, recorder, out));

    assertEquals(3 * 256, handoff.retainedBytes(), "the small arrays kept, the large let go");
    assertEquals(7, recorder.tokenChunks(), "every event was read before its array went");
  }

  private static byte[] chunk(String content) {
    return ("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + content + "\"}}]}\n")
        .getBytes(StandardCharsets.UTF_8);
  }
}

package io.tpotstream.producer.sse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The event loop's share: event boundaries on bytes, terminal events, and no copy when whole. */
class SseFramerTest {
  private final List<String> events = new ArrayList<>();
  private final List<Boolean> terminal = new ArrayList<>();
  private final List<byte[]> arrays = new ArrayList<>();
  private final SseFramer framer =
      new SseFramer(
          (bytes, offset, length, isTerminal) -> {
            events.add(new String(bytes, offset, length, StandardCharsets.UTF_8));
            terminal.add(isTerminal);
            arrays.add(bytes);
          });

  private byte[] feed(String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    framer.feed(bytes, 0, bytes.length);
    return bytes;
  }

  @Test
  void anEventWithinOneReadIsPassedFromThatReadsOwnBytes() {
    byte[] read = feed("data: a\n\ndata: b\r\n\r\n");
    assertEquals(List.of("data: a\n", "data: b\r\n"), events);
    assertSame(read, arrays.get(0), "no copy of an event that one read holds whole");
    assertSame(read, arrays.get(1));
  }

  @Test
  void anEventSplitAcrossReadsIsJoined() {
    feed("data: {\"a\":");
    feed("1}\r");
    feed("\n\r\n");
    assertEquals(List.of("data: {\"a\":1}\r\n"), events);
  }

  @Test
  void eventsWithoutDataAreDroppedOnTheLoop() {
    feed(": ping\n\nevent: ping\n\n\n\ndata: x\n\n");
    assertEquals(List.of("data: x\n"), events);
    assertEquals(1, framer.events());
    assertEquals(1, framer.comments());
  }

  @Test
  void doneAndMessageStopAreTerminal() {
    feed("data: a\n\ndata: [DONE]\n\n");
    feed("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\ndata:[DONE] \n\n");
    assertEquals(List.of(false, true, true, true), terminal);
  }

  @Test
  void anEventCutOffByTheEndIsPending() {
    feed("data: a\n\ndata: [DO");
    feed("NE]");
    assertEquals(List.of("data: a\n"), events);
    assertEquals(
        "data: [DONE]",
        new String(framer.pendingBytes(), 0, framer.pendingLength(), StandardCharsets.UTF_8));
  }

  @Test
  void aBomSplitAcrossReadsIsDropped() {
    byte[] bytes = "\uFEFFdata: a\n\n".getBytes(StandardCharsets.UTF_8);
    framer.feed(bytes, 0, 2);
    framer.feed(bytes, 2, bytes.length - 2);
    assertEquals(List.of("data: a\n"), events);
  }

  @Test
  void fieldsReadTheFramersBytes() {
    feed("event: content_block_delta\n: note\ndata: {\"x\":\ndata: 1}\nid: 3\n\n");
    SseFields fields = new SseFields();
    byte[] event = events.get(0).getBytes(StandardCharsets.UTF_8);
    assertEquals(true, fields.read(event, 0, event.length));
    assertEquals("content_block_delta", fields.event());
    assertEquals("{\"x\":\n1}", fields.dataText());
  }
}

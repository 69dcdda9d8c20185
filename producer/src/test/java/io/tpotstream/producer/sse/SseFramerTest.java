package io.tpotstream.producer.sse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The event loop's share: event boundaries on bytes, terminal events, no copy when whole, and each
 * event's stamp: the read that ended its last data line, as a client reading lines sees it.
 */
class SseFramerTest {
  private final List<String> events = new ArrayList<>();
  private final List<Boolean> terminal = new ArrayList<>();
  private final List<byte[]> arrays = new ArrayList<>();
  private final List<Long> stampsNs = new ArrayList<>();
  private final List<Long> reads = new ArrayList<>();
  private final SseFramer framer =
      new SseFramer(
          (bytes, offset, length, isTerminal, readNs, read) -> {
            events.add(new String(bytes, offset, length, StandardCharsets.UTF_8));
            terminal.add(isTerminal);
            arrays.add(bytes);
            stampsNs.add(readNs);
            reads.add(read);
          });
  private long read;

  /** Feeds one read, numbered from 1, stamped 1000 ns times its number. */
  private byte[] feed(String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    read++;
    framer.feed(bytes, 0, bytes.length, read * 1000, read);
    return bytes;
  }

  private static String chunk(String text) {
    return "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + text + "\"}}]}";
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
  void aBomSplitAcrossReadsIsDropped() {
    byte[] bytes = "\uFEFFdata: a\n\n".getBytes(StandardCharsets.UTF_8);
    framer.feed(bytes, 0, 2, 1, 1);
    framer.feed(bytes, 2, bytes.length - 2, 2, 2);
    assertEquals(List.of("data: a\n"), events);
  }

  @Test
  void anEventCarriesTheReadOfItsDataLineNotTheReadOfItsBlankLine() {
    // a server that flushes each event's blank line with the next event
    feed("data: " + chunk("a") + "\n");
    feed("\ndata: " + chunk("b") + "\n");
    feed("\n");
    assertEquals(List.of("data: " + chunk("a") + "\n", "data: " + chunk("b") + "\n"), events);
    assertEquals(List.of(1000L, 2000L), stampsNs);
    assertEquals(List.of(1L, 2L), reads);
  }

  @Test
  void anEventCarriesTheReadOfItsDataLineWithCrlfLineEnds() {
    feed("data: " + chunk("a") + "\r\n");
    feed("\r\ndata: " + chunk("b") + "\r\n");
    feed("\r\n");
    assertEquals(List.of("data: " + chunk("a") + "\r\n", "data: " + chunk("b") + "\r\n"), events);
    assertEquals(List.of(1000L, 2000L), stampsNs);
    assertEquals(List.of(1L, 2L), reads);
  }

  @Test
  void aCrlfSplitAcrossReadsEndsTheDataLineAtItsCr() {
    feed("data: a\r");
    feed("\n\r");
    feed("\n");
    assertEquals(List.of("data: a\r\n"), events);
    assertEquals(List.of(1000L), stampsNs);
  }

  @Test
  void aDataLineEndedByALaterReadCarriesThatRead() {
    feed("data: " + chunk("a"));
    feed("\n");
    feed("\n");
    assertEquals(List.of(2000L), stampsNs);
  }

  @Test
  void anthropicEventLinesDoNotMoveTheStamp() {
    feed("event: content_block_delta\n");
    feed("data: {\"type\":\"content_block_delta\"}\n");
    feed("\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\"}\n");
    feed("\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n");
    feed("\n");
    assertEquals(3, events.size());
    assertEquals(List.of(2000L, 3000L, 4000L), stampsNs);
    assertEquals(List.of(false, false, true), terminal);
  }

  @Test
  void multiLineDataCarriesTheReadOfItsLastDataLine() {
    feed("data: {\"x\":\n");
    feed("data: 1}\nid: 7\n");
    feed("\n");
    assertEquals(List.of("data: {\"x\":\ndata: 1}\nid: 7\n"), events);
    assertEquals(List.of(2000L), stampsNs);
  }

  @Test
  void commentsAndKeepAlivesDoNotMoveTheStamp() {
    feed("data: a\n");
    feed(": ping\n");
    feed("\n: keep-alive\n\n");
    feed("data: b\n");
    feed("\n");
    assertEquals(List.of("data: a\n: ping\n", "data: b\n"), events);
    assertEquals(List.of(1000L, 4000L), stampsNs);
    assertEquals(2, framer.comments());
  }

  @Test
  void aLastEventWithoutItsBlankLineIsDispatchedAtTheEnd() {
    feed("data: " + chunk("a") + "\n\n");
    feed("data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n");
    assertEquals(1, events.size(), "no blank line yet: not dispatched on the way");
    framer.end();
    assertEquals(
        List.of(
            "data: " + chunk("a") + "\n",
            "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n"),
        events);
    assertEquals(List.of(1000L, 2000L), stampsNs);
    assertEquals(2, framer.events());
    framer.end();
    assertEquals(2, events.size(), "nothing is left for a second end");
  }

  @Test
  void aLastLineWithoutItsLineEndIsDispatchedWithTheLastRead() {
    feed("data: a\r\n\r\ndata: [DO");
    feed("NE]");
    framer.end();
    assertEquals(List.of("data: a\r\n", "data: [DONE]"), events);
    assertEquals(List.of(false, true), terminal);
    assertEquals(List.of(1000L, 2000L), stampsNs);
  }

  @Test
  void theEndDispatchesNoEventWithoutData() {
    feed("data: a\n\n: ping\nevent: ping\n");
    framer.end();
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

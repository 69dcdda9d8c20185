package io.tpotstream.producer.sse;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseParserTest {
  private final List<SseEvent> events = new ArrayList<>();
  private final SseParser parser = new SseParser(events::add);

  private void feed(String text, long arrivalNs) {
    parser.feed(text.getBytes(StandardCharsets.UTF_8), arrivalNs);
  }

  private List<String> data() {
    return events.stream().map(SseEvent::data).toList();
  }

  @Test
  void lfLineEndsDispatchOneEventPerBlankLine() {
    feed("data: a\n\ndata: b\n\n", 7);
    assertEquals(List.of("a", "b"), data());
    assertEquals(List.of(7L, 7L), events.stream().map(SseEvent::arrivalNs).toList());
  }

  @Test
  void crlfLineEndsAreOneLineEnd() {
    feed("data: a\r\n\r\ndata: b\r\n\r\n", 1);
    assertEquals(List.of("a", "b"), data());
  }

  @Test
  void bareCrLineEndsWork() {
    feed("data: a\r\rdata: b\r\r", 1);
    assertEquals(List.of("a", "b"), data());
  }

  @Test
  void crlfSplitBetweenReadsIsStillOneLineEnd() {
    feed("data: a\r", 1);
    feed("\ndata: b\r", 2);
    feed("\n\r", 3);
    feed("\n", 4);
    // had the LF after a CR counted as a blank line, "a" would have been dispatched alone
    assertEquals(List.of("a\nb"), data());
    assertEquals(2L, events.get(0).arrivalNs(), "b's line ended at its CR, in read 2");
  }

  @Test
  void commentsAreSkippedAndCounted() {
    feed(": ping\n\n:keep-alive\ndata: x\n\n: ping\n\n", 1);
    assertEquals(List.of("x"), data());
    assertEquals(3, parser.comments());
  }

  @Test
  void eventFieldIsKeptAndIdIsIgnored() {
    feed("event: content_block_delta\nid: 42\ndata: {}\n\ndata: next\n\n", 1);
    assertEquals(2, events.size());
    assertEquals("content_block_delta", events.get(0).event());
    assertEquals("{}", events.get(0).data());
    assertEquals("message", events.get(1).event());
  }

  @Test
  void multiLineDataIsJoinedWithLf() {
    feed("data: {\"a\":\ndata: 1}\ndata:\n\n", 1);
    assertEquals(List.of("{\"a\":\n1}\n"), data());
  }

  @Test
  void onlyOneLeadingSpaceIsStripped() {
    feed("data:no-space\n\ndata:  two\n\n", 1);
    assertEquals(List.of("no-space", " two"), data());
  }

  @Test
  void eventSplitByteByByteArrivesWithTheTimeOfItsDataLinesEnd() {
    byte[] bytes = "data: {\"x\":\"é\"}\n\n".getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < bytes.length; i++) {
      parser.feed(bytes, i, 1, 100 + i);
    }
    assertEquals(List.of("{\"x\":\"é\"}"), data());
    assertEquals(100L + bytes.length - 2, events.get(0).arrivalNs(), "the data line's LF");
  }

  @Test
  void eachEventCarriesTheReadThatEndedItsDataLineNotItsBlankLine() {
    feed("data: a\n", 10);
    feed("\ndata: b\n\ndata: c", 20);
    feed("\n\n", 30);
    assertEquals(List.of("a", "b", "c"), data());
    assertEquals(List.of(10L, 20L, 30L), events.stream().map(SseEvent::arrivalNs).toList());
  }

  @Test
  void leadingBomIsDropped() {
    feed("\uFEFFdata: a\n\n", 1);
    assertEquals(List.of("a"), data());
  }

  @Test
  void leadingBomSplitAcrossReadsIsDropped() {
    byte[] bytes = "\uFEFFdata: a\n\n".getBytes(StandardCharsets.UTF_8);
    parser.feed(bytes, 0, 1, 1);
    parser.feed(bytes, 1, 1, 2);
    parser.feed(bytes, 2, bytes.length - 2, 3);
    assertEquals(List.of("a"), data());
  }

  @Test
  void bomLaterInTheStreamIsData() {
    feed("data: a\n\ndata: \uFEFFb\n\n", 1);
    assertEquals(List.of("a", "\uFEFFb"), data());
  }

  @Test
  void blankLinesWithoutDataDispatchNothing() {
    feed("\n\nevent: ping\n\n\n", 1);
    assertEquals(List.of(), data());
  }

  @Test
  void eventTypeResetsAfterDispatch() {
    feed("event: error\ndata: x\n\ndata: y\n\n", 1);
    assertEquals(List.of("error", "message"), events.stream().map(SseEvent::event).toList());
  }

  @Test
  void anEventCutOffByTheEndIsDispatchedWhenTheStreamEnds() {
    feed("data: a\n\ndata: [DONE]", 1);
    assertEquals(List.of("a"), data());
    feed("\n", 2);
    assertEquals(List.of("a"), data(), "no blank line yet");
    parser.end();
    assertEquals(List.of("a", "[DONE]"), data());
    assertEquals(2L, events.get(1).arrivalNs());
  }

  @Test
  void theEndAddsNothingAfterACompleteEvent() {
    feed("data: a\n\n: ping\n", 1);
    parser.end();
    assertEquals(List.of("a"), data());
  }

  @Test
  void retryAndUnknownFieldsAreIgnored() {
    feed("retry: 1000\nfoo: bar\ndata: a\n\n", 1);
    assertEquals(List.of("a"), data());
  }
}

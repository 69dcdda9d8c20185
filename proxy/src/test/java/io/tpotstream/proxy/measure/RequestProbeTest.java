package io.tpotstream.proxy.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RequestProbeTest {
  private static RequestProbe.Facts probe(String body, int pieceBytes) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    RequestProbe probe = new RequestProbe();
    for (int i = 0; i < bytes.length; i += pieceBytes) {
      probe.feed(Buffer.buffer().appendBytes(bytes, i, Math.min(pieceBytes, bytes.length - i)));
    }
    return probe.read();
  }

  @Test
  void modelAndStreamAfterTheMessagesAreFoundInAnySplit() {
    String body =
        "{\"messages\":[{\"role\":\"user\",\"content\":\"a \\\"model\\\": x\"}],"
            + "\"tools\":[{\"model\":\"nested-is-not-it\",\"stream\":false}],"
            + "\"model\":\"gpt-4o-mini\",\"temperature\":0.2,\"stream\":true}";
    for (int piece : new int[] {1, 2, 7, 64, 10_000}) {
      assertEquals(new RequestProbe.Facts("gpt-4o-mini", true, true), probe(body, piece));
    }
  }

  @Test
  void aRequestWithoutStreamIsNotAStream() {
    assertEquals(
        new RequestProbe.Facts("m", false, true),
        probe("{\"model\":\"m\",\"stream\":false,\"messages\":[]}", 5));
    assertEquals(new RequestProbe.Facts("m", false, true), probe("{\"model\":\"m\"}", 3));
  }

  @Test
  void aBodyThatIsNotAJsonObjectIsNotWhole() {
    assertEquals(new RequestProbe.Facts(null, false, false), probe("model=m&stream=true", 4));
    assertEquals(new RequestProbe.Facts(null, false, false), probe("[1,2]", 4));
    assertEquals(
        new RequestProbe.Facts("m", true, false), probe("{\"model\":\"m\",\"stream\":true", 4));
  }
}

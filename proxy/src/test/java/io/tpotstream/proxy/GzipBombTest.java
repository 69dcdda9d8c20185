package io.tpotstream.proxy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.producer.testing.TopicReader;
import io.tpotstream.proxy.http.Upstream;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A gzip bomb through the proxy, from a real upstream: 64 KB on the wire whose one line inflates to
 * 64 MiB. The client gets exactly the upstream's bytes, the measurement of that response ends with
 * the cap named, and the ordinary compressed stream that follows on the same proxy is measured in
 * full.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class GzipBombTest {
  private static final int BOMB_LINE_BYTES = 64 << 20;

  @Test
  void aBombReachesTheClientUntouchedEndsItsOwnMeasurementAndTheNextStreamIsMeasured(
      TestKafka kafka) throws Exception {
    byte[] bomb = bomb();
    byte[] ordinary = ordinary();
    Vertx vertx = Vertx.vertx();
    HttpServer upstream =
        vertx
            .createHttpServer()
            .requestHandler(
                r ->
                    r.body()
                        .onSuccess(
                            body -> {
                              HttpServerResponse response =
                                  r.response()
                                      .setChunked(true)
                                      .putHeader("Content-Type", "text/event-stream")
                                      .putHeader("Content-Encoding", "gzip");
                              byte[] sent = body.toString().contains("bomb") ? bomb : ordinary;
                              for (int at = 0; at < sent.length; at += 16_384) {
                                response.write(
                                    Buffer.buffer(
                                        Arrays.copyOfRange(
                                            sent, at, Math.min(sent.length, at + 16_384))));
                              }
                              response.end();
                            }))
            .listen(0, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    String topic = TestKafka.uniqueName("proxy-gzip-bomb");
    TpotProxy proxy =
        TpotProxy.start(
            ProxyConfig.of(0, Upstream.parse("http://127.0.0.1:" + upstream.actualPort()))
                .withMetricsPort(-1)
                .withEventLoops(1),
            KafkaSettings.of(kafka.bootstrapServers()).withTopic(topic).withPartitions(1));
    RawHttp.Response bombed;
    RawHttp.Response next;
    try {
      await().atMost(Duration.ofSeconds(30)).until(() -> proxy.events().connected());
      bombed = chat(proxy, "{\"model\":\"bomb\",\"stream\":true}");
      next = chat(proxy, "{\"model\":\"plain\",\"stream\":true}");
    } finally {
      proxy.close();
      vertx.close();
    }
    assertEquals(200, bombed.status());
    assertTrue(bombed.complete());
    assertArrayEquals(bomb, bombed.body(), "the client gets the upstream's bytes, untouched");
    assertArrayEquals(ordinary, next.body());

    Map<String, List<TokenEvent>> byRequest =
        TopicReader.byRequest(TopicReader.readUntilFinal(kafka, topic, proxy.producerId()));
    assertEquals(2, byRequest.size());
    List<TokenEvent> ofBomb = ofModel(byRequest, "bomb");
    assertEquals(List.of("start", "error"), ofBomb.stream().map(e -> e.type().wire()).toList());
    TokenEvent error = ofBomb.get(1);
    assertEquals("protocol", error.errorClass());
    assertEquals(
        "the event stream for POST /v1/chat/completions carried an SSE event of more than"
            + " 4,194,304 bytes (tpot's cap per event) after 0 token chunks: forwarded unchanged,"
            + " measured no further",
        error.message());
    List<TokenEvent> ofNext = ofModel(byRequest, "plain");
    assertEquals(
        List.of("start", "token", "token", "token", "end"),
        ofNext.stream().map(e -> e.type().wire()).toList());
  }

  private static List<TokenEvent> ofModel(Map<String, List<TokenEvent>> byRequest, String model) {
    return byRequest.values().stream()
        .filter(events -> events.get(0).model().equals(model))
        .findFirst()
        .orElseThrow();
  }

  /** One token chunk whose text is 64 MiB of one letter: about 64 KB once compressed. */
  private static byte[] bomb() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(out, true)) {
      gzip.write(ascii("data: {\"choices\":[{\"delta\":{\"content\":\""));
      byte[] letters = new byte[1 << 20];
      Arrays.fill(letters, (byte) 'A');
      for (int i = 0; i < BOMB_LINE_BYTES / letters.length; i++) {
        gzip.write(letters);
      }
      gzip.write(ascii("\"}}]}\n\ndata: [DONE]\n\n"));
    }
    return out.toByteArray();
  }

  private static byte[] ordinary() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(out, true)) {
      for (int i = 0; i < 3; i++) {
        gzip.write(ascii("data: {\"choices\":[{\"delta\":{\"content\":\"w" + i + "\"}}]}\n\n"));
        gzip.flush();
      }
      gzip.write(ascii("data: [DONE]\n\n"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  private static RawHttp.Response chat(TpotProxy proxy, String json) {
    return RawHttp.exchange(
        proxy.port(), RawHttp.post("/v1/chat/completions", json, "Accept-Encoding: gzip"));
  }
}

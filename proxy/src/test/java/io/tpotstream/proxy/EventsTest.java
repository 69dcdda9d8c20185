package io.tpotstream.proxy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenKind;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.producer.testing.TopicReader;
import io.tpotstream.proxy.http.Upstream;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.TestSimulators;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.LogCapture;
import io.tpotstream.testkit.TestKafka;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The event side on the real broker and the real simulator: each measured stream becomes exactly
 * the producer's events (start, one token per output chunk, end or error) with {@code source:
 * proxy}, the proxy's producer id, heartbeats and a final heartbeat on every partition; no API key
 * and no prompt text in any topic or log; with Kafka down the traffic flows and drops are counted.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class EventsTest {
  private static final String KEY = "sk-proxy-events-test-0123456789";
  private static final String PROMPT = "my private prompt about the quarterly numbers";

  private static Simulator simulator;

  @BeforeAll
  static void start() {
    simulator = Simulator.start(TestSimulators.proxyUpstream(3L, KEY));
  }

  @AfterAll
  static void stop() {
    simulator.close();
  }

  private static String openAi(String model, int maxTokens, boolean stream) {
    return "{\"model\":\""
        + model
        + "\",\"stream\":"
        + stream
        + ",\"max_tokens\":"
        + maxTokens
        + ",\"stream_options\":{\"include_usage\":true},"
        + "\"messages\":[{\"role\":\"user\",\"content\":\""
        + PROMPT
        + "\"}]}";
  }

  @Test
  void eachStreamBecomesTheProducersEventsAndNoSecretReachesKafkaOrTheLogs(TestKafka kafka)
      throws Exception {
    String topic = TestKafka.uniqueName("proxy-events");
    try (LogCapture logs = LogCapture.begin()) {
      TpotProxy proxy =
          TpotProxy.start(
              ProxyConfig.of(0, Upstream.parse(simulator.baseUrl()))
                  .withMetricsPort(0)
                  .withEventLoops(2)
                  .withRunId("proxy-events-test")
                  .withLabels(Map.of("target", "sim"))
                  .withLabelHeaders(Map.of("X-App", "app"))
                  .withRequestIdHeader("X-Trace-Id"),
              KafkaSettings.of(kafka.bootstrapServers()).withTopic(topic).withPartitions(2));
      String metrics;
      List<String> completions = new ArrayList<>();
      try {
        await().atMost(Duration.ofSeconds(30)).until(() -> proxy.events().connected());
        List<Supplier<RawHttp.Response>> calls = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          String trace = i == 0 ? "X-Trace-Id: trace-42" : "X-Other: 1";
          calls.add(
              () ->
                  chat(
                      proxy,
                      openAi("quick", 30, true),
                      "Authorization: Bearer " + KEY,
                      "X-App: billing",
                      "X-Tenant: not-a-label",
                      trace));
        }
        for (int i = 0; i < 2; i++) {
          calls.add(
              () ->
                  RawHttp.exchange(
                      proxy.port(),
                      RawHttp.post(
                          "/v1/messages",
                          "{\"model\":\"quick\",\"max_tokens\":20,\"stream\":true,\"messages\":"
                              + "[{\"role\":\"user\",\"content\":\""
                              + PROMPT
                              + "\"}]}",
                          "x-api-key: " + KEY,
                          "anthropic-version: 2023-06-01")));
        }
        calls.add(() -> chat(proxy, openAi("limited", 30, true), "Authorization: Bearer " + KEY));
        calls.add(
            () ->
                chat(
                    proxy,
                    openAi("quick", 30, true),
                    "Authorization: Bearer sk-wrong",
                    "X-App: billing"));
        // not measured: a whole reply and another path
        calls.add(() -> chat(proxy, openAi("quick", 10, false), "Authorization: Bearer " + KEY));
        calls.add(
            () ->
                RawHttp.exchange(
                    proxy.port(), RawHttp.get("/v1/models", "Authorization: Bearer " + KEY)));
        List<CompletableFuture<RawHttp.Response>> running =
            calls.stream().map(CompletableFuture::supplyAsync).toList();
        List<Integer> statuses = running.stream().map(f -> f.join().status()).toList();
        for (CompletableFuture<RawHttp.Response> f : running) {
          String completion = completion(f.join().text());
          if (completion.length() > 40) {
            completions.add(completion.substring(10, 40));
          }
        }
        assertEquals(List.of(200, 200, 200, 200, 200, 200, 429, 401, 200, 200), statuses);
        metrics = RawHttp.exchange(proxy.metricsPort(), RawHttp.get("/metrics")).text();
      } finally {
        proxy.close();
      }

      List<TopicReader.Rec> records = TopicReader.readUntilFinal(kafka, topic, proxy.producerId());
      Map<String, List<TokenEvent>> requests = TopicReader.byRequest(records);
      assertEquals(8, requests.size(), requests.keySet().toString());
      // one request id from the operator's named header, the others the proxy's own
      assertEquals(32, requests.get("trace-42").size());
      assertEquals(
          7,
          requests.keySet().stream().filter(id -> id.startsWith(proxy.producerId() + "-")).count());
      Map<String, Integer> shapes = new TreeMap<>();
      for (List<TokenEvent> events : requests.values()) {
        TokenEvent start = events.get(0);
        TokenEvent last = events.get(events.size() - 1);
        assertEquals(EventType.START, start.type());
        String route = start.labels().get("route");
        String shape = route + " " + start.model() + " " + events.size() + " " + last.type().wire();
        if (last.type() == EventType.ERROR) {
          shape += " " + last.errorClass() + " " + last.httpStatus();
        }
        shapes.merge(shape, 1, Integer::sum);
        for (TokenEvent e : events) {
          assertEquals("proxy", e.source());
          assertEquals(proxy.producerId(), e.producerId());
          assertEquals("proxy-events-test", e.runId());
          assertEquals("sim", e.labels().get("target"));
          assertFalse(e.labels().containsKey("tenant"));
          assertEquals(
              route.equals("/v1/chat/completions") && e.model().equals("quick") ? "billing" : null,
              e.labels().get("app"));
        }
        List<TokenEvent> tokens = events.stream().filter(e -> e.type() == EventType.TOKEN).toList();
        long previousNs = 0;
        for (int seq = 0; seq < tokens.size(); seq++) {
          TokenEvent t = tokens.get(seq);
          assertEquals(seq, t.seq());
          assertEquals(1, t.tokens());
          assertEquals(TokenKind.CONTENT, t.kind());
          assertTrue(t.elapsedNs() >= previousNs && t.elapsedNs() > 0);
          // chunks from one upstream read share its time and say so
          assertEquals(seq > 0 && t.elapsedNs() == previousNs, t.arrivedCoalesced());
          previousNs = t.elapsedNs();
        }
        if (last.type() == EventType.END) {
          assertEquals(tokens.size(), last.seq());
          assertEquals(tokens.size(), last.completionTokens());
          // the prompt's 45 characters: 12 tokens, no whole block of 16 for the prefix cache
          assertEquals(12, last.promptTokens());
          assertEquals(0, last.cachedTokens(), "the proxy reads the cached tokens too");
        }
      }
      assertEquals(
          Map.of(
              "/v1/chat/completions quick 32 end", 4,
              "/v1/messages quick 22 end", 2,
              "/v1/chat/completions limited 2 error http_429 429", 1,
              "/v1/chat/completions quick 2 error http_401 401", 1),
          shapes);

      // heartbeats: on every partition, watermarks rising, no event below one already sent
      Map<Integer, Long> watermark = new TreeMap<>();
      for (TopicReader.Rec r : records) {
        TokenEvent e = r.event();
        if (e.type() == EventType.HEARTBEAT) {
          assertEquals(proxy.producerId(), e.producerId());
          assertEquals("proxy", e.source());
          assertEquals(0L, e.droppedEvents());
          assertTrue(e.watermark() >= watermark.getOrDefault(r.partition(), Long.MIN_VALUE));
          watermark.put(r.partition(), e.watermark());
        } else {
          assertTrue(e.ts() >= watermark.getOrDefault(r.partition(), Long.MIN_VALUE));
          // the broker's append time (the topic tpot created), after the event's time
          assertTrue(r.timestamp() >= e.ts() - 1_000, "appended after its ts");
          assertEquals(e.requestId(), r.key());
        }
      }
      assertEquals(2, watermark.size());

      // the proxy's own metrics
      assertTrue(metrics.contains("tpot_proxy_requests_total{kind=\"measured\"} 8.0"), metrics);
      assertTrue(metrics.contains("tpot_proxy_requests_total{kind=\"not_streaming\"} 1.0"));
      assertTrue(metrics.contains("tpot_proxy_requests_total{kind=\"passthrough\"} 1.0"));
      assertTrue(metrics.contains("tpot_proxy_events_dropped_total 0.0"), metrics);
      assertTrue(metrics.contains("tpot_proxy_added_latency_seconds_count "), metrics);
      assertEquals(0, proxy.events().dropped());
      assertEquals(
          records.stream().filter(r -> r.event().type() != EventType.HEARTBEAT).count(),
          proxy.events().published());

      // privacy: neither the key nor the prompt in any topic or log line; the search itself works
      List<String> everything = EventsTopic.everyRecordOfEveryTopic(kafka);
      everything.addAll(logs.lines());
      assertTrue(everything.stream().anyMatch(t -> t.contains(proxy.producerId())));
      for (String text : everything) {
        assertFalse(text.contains(KEY), text);
        assertFalse(text.contains("sk-proxy-events"), text);
        assertFalse(text.contains(PROMPT), text);
        assertFalse(text.contains("quarterly"), text);
        for (String completion : completions) {
          assertFalse(text.contains(completion), text);
        }
      }
      assertEquals(6, completions.size());
    }
  }

  @Test
  void sampleZeroForwardsEverythingAndMeasuresNothing() throws Exception {
    TpotProxy proxy = startWithKafkaDown(0);
    try {
      for (int i = 0; i < 2; i++) {
        RawHttp.Response r = streamQuick(proxy, 5);
        assertEquals(200, r.status());
        assertTrue(r.text().endsWith("data: [DONE]\n\n"));
      }
      String metrics = RawHttp.exchange(proxy.metricsPort(), RawHttp.get("/metrics")).text();
      assertTrue(metrics.contains("tpot_proxy_requests_total{kind=\"unsampled\"} 2.0"), metrics);
      assertTrue(metrics.contains("tpot_proxy_requests_total{kind=\"measured\"} 0.0"), metrics);
    } finally {
      proxy.close();
    }
    assertEquals(0, proxy.events().dropped());
  }

  @Test
  void aGzipStreamReachesTheClientCompressedAndIsTimedFromAnInflatedCopy(TestKafka kafka)
      throws Exception {
    // an upstream that compresses its event stream, flushing the deflater after every event
    ByteArrayOutputStream sent = new ByteArrayOutputStream();
    Vertx vertx = Vertx.vertx();
    HttpServer upstream =
        vertx
            .createHttpServer()
            .requestHandler(
                r ->
                    r.body()
                        .onSuccess(
                            body -> {
                              r.response()
                                  .setChunked(true)
                                  .putHeader("Content-Type", "text/event-stream")
                                  .putHeader("Content-Encoding", "gzip");
                              try {
                                GzipEvents gzip = new GzipEvents();
                                for (int i = 0; i < 5; i++) {
                                  byte[] piece =
                                      gzip.event(
                                          "data: {\"choices\":[{\"delta\":{\"content\":\"w"
                                              + i
                                              + "\"}}]}\n\n");
                                  sent.write(piece);
                                  r.response().write(Buffer.buffer(piece));
                                }
                                byte[] last = gzip.finish("data: [DONE]\n\n");
                                sent.write(last);
                                r.response().end(Buffer.buffer(last));
                              } catch (IOException e) {
                                r.response().reset();
                              }
                            }))
            .listen(0, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    String topic = TestKafka.uniqueName("proxy-gzip");
    TpotProxy proxy =
        TpotProxy.start(
            ProxyConfig.of(0, Upstream.parse("http://127.0.0.1:" + upstream.actualPort()))
                .withMetricsPort(-1)
                .withEventLoops(1),
            KafkaSettings.of(kafka.bootstrapServers()).withTopic(topic).withPartitions(1));
    RawHttp.Response response;
    try {
      await().atMost(Duration.ofSeconds(30)).until(() -> proxy.events().connected());
      response = chat(proxy, "{\"model\":\"zipped\",\"stream\":true}", "Accept-Encoding: gzip");
    } finally {
      proxy.close();
      vertx.close();
    }
    assertEquals("gzip", response.header("Content-Encoding"));
    assertArrayEquals(sent.toByteArray(), response.body());
    List<TokenEvent> events =
        TopicReader.byRequest(TopicReader.readUntilFinal(kafka, topic, proxy.producerId()))
            .values()
            .iterator()
            .next();
    assertEquals(
        List.of("start", "token", "token", "token", "token", "token", "end"),
        events.stream().map(e -> e.type().wire()).toList());
    assertEquals("zipped", events.get(0).model());
  }

  /** Gzip that flushes after each event, as a streaming server that compresses must. */
  private static final class GzipEvents {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final GZIPOutputStream gzip;

    GzipEvents() throws IOException {
      gzip = new GZIPOutputStream(out, true);
    }

    byte[] event(String text) throws IOException {
      gzip.write(text.getBytes(StandardCharsets.UTF_8));
      gzip.flush();
      return take();
    }

    byte[] finish(String text) throws IOException {
      gzip.write(text.getBytes(StandardCharsets.UTF_8));
      gzip.finish();
      return take();
    }

    private byte[] take() {
      byte[] bytes = out.toByteArray();
      out.reset();
      return bytes;
    }
  }

  /** The output text of a stream (OpenAI deltas or Anthropic text deltas), joined. */
  private static String completion(String sse) throws Exception {
    StringBuilder text = new StringBuilder();
    for (String line : sse.split("\n")) {
      if (!line.startsWith("data: {")) {
        continue;
      }
      JsonNode chunk = Json.MAPPER.readTree(line.substring(6));
      text.append(chunk.path("choices").path(0).path("delta").path("content").asText(""));
      text.append(chunk.path("delta").path("text").asText(""));
    }
    return text.toString();
  }

  @Test
  void withKafkaDownRequestsFlowAndEveryEventIsCountedAsDropped() throws Exception {
    TpotProxy proxy = startWithKafkaDown(1.0);
    try {
      for (int i = 0; i < 3; i++) {
        RawHttp.Response r = streamQuick(proxy, 10);
        assertEquals(200, r.status());
        assertTrue(r.complete());
        assertTrue(r.text().endsWith("data: [DONE]\n\n"));
      }
      // start + 10 tokens + end, three times
      await().atMost(Duration.ofSeconds(30)).until(() -> proxy.events().dropped() == 36);
      String metrics = RawHttp.exchange(proxy.metricsPort(), RawHttp.get("/metrics")).text();
      assertTrue(metrics.contains("tpot_proxy_events_dropped_total 36.0"), metrics);
      assertTrue(metrics.contains("tpot_proxy_requests_total{kind=\"measured\"} 3.0"), metrics);
    } finally {
      proxy.close();
    }
    assertEquals(36, proxy.events().dropped());
    assertEquals(0, proxy.events().published());
  }

  /**
   * A proxy in front of the simulator, measuring {@code sample} of the streams, whose Kafka is a
   * closed port and that holds nothing for it: every event is dropped at once.
   */
  private static TpotProxy startWithKafkaDown(double sample) throws IOException {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    return TpotProxy.start(
        ProxyConfig.of(0, Upstream.parse(simulator.baseUrl()))
            .withMetricsPort(0)
            .withEventLoops(1)
            .withSample(sample),
        KafkaSettings.of("127.0.0.1:" + closedPort)
            .withTopic("never")
            .withSetupTimeout(Duration.ofSeconds(1))
            .withOutageBuffer(0));
  }

  /**
   * A streamed chat completion of {@code maxTokens} from the quick model, through {@code proxy}.
   */
  private static RawHttp.Response streamQuick(TpotProxy proxy, int maxTokens) {
    return chat(proxy, openAi("quick", maxTokens, true), "Authorization: Bearer " + KEY);
  }

  /** A POST of {@code json} to /v1/chat/completions through {@code proxy}. */
  private static RawHttp.Response chat(TpotProxy proxy, String json, String... headers) {
    return RawHttp.exchange(proxy.port(), RawHttp.post("/v1/chat/completions", json, headers));
  }
}

package io.tpotstream.proxy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.proxy.http.ObserverFactory;
import io.tpotstream.proxy.http.Upstream;
import io.tpotstream.proxy.metrics.ProxyMetrics;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.TestSimulators;
import io.tpotstream.simulator.profile.Distribution;
import io.tpotstream.simulator.profile.ErrorRates;
import io.tpotstream.simulator.profile.ModelProfile;
import io.tpotstream.simulator.truth.Outcome;
import io.tpotstream.simulator.truth.RequestTruth;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The HTTP side against the real simulator and a plain-socket client: what a client reads through
 * the proxy is what it reads directly (status line, every header line in order, body bytes), for
 * streams, whole replies, errors and any other path; keep-alive works; a client that goes away
 * cancels the upstream call; an upstream that breaks breaks the client's response.
 */
class ForwardingTest {
  private static final String KEY = "sk-forwarding-test-key";
  private static final Pattern CREATED = Pattern.compile("\"created\":(\\d+)");

  private static Simulator simulator;
  private static TpotProxy proxy;

  @BeforeAll
  static void start() {
    simulator =
        Simulator.start(
            TestSimulators.proxyUpstream(7L, KEY)
                .withProfile(
                    "slow",
                    ModelProfile.of(new Distribution.Constant(5), new Distribution.Constant(20)))
                .withProfile(
                    "cutter",
                    TestSimulators.fast().withErrors(new ErrorRates(0, 1, 0, 1.0, 3, 0, null))));
    proxy =
        TpotProxy.start(
            ProxyConfig.of(0, Upstream.parse(simulator.baseUrl()))
                .withMetricsPort(-1)
                .withEventLoops(2),
            new ProxyMetrics(),
            ObserverFactory.NONE);
  }

  @AfterAll
  static void stop() {
    if (proxy != null) {
      proxy.close();
    }
    if (simulator != null) {
      simulator.close();
    }
  }

  @Test
  void openAiStreamReadsTheSameThroughTheProxyAsDirectly() {
    assertSameBothWays(
        id ->
            RawHttp.post(
                "/v1/chat/completions",
                "{\"model\":\"quick\",\"stream\":true,\"max_tokens\":60,"
                    + "\"stream_options\":{\"include_usage\":true},"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}",
                "Authorization: Bearer " + KEY,
                "X-Request-Id: " + id),
        200);
  }

  @Test
  void anthropicStreamReadsTheSameThroughTheProxyAsDirectly() {
    RawHttp.Response[] pair =
        assertSameBothWays(
            id ->
                RawHttp.post(
                    "/v1/messages",
                    "{\"model\":\"quick\",\"stream\":true,\"max_tokens\":40,"
                        + "\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}",
                    "x-api-key: " + KEY,
                    "anthropic-version: 2023-06-01",
                    "X-Request-Id: " + id),
            200);
    assertTrue(pair[1].text().contains("event: message_stop"));
  }

  @Test
  void wholeRepliesAndErrorsReadTheSameThroughTheProxyAsDirectly() {
    // a non-streamed reply
    assertSameBothWays(
        id ->
            RawHttp.post(
                "/v1/chat/completions",
                "{\"model\":\"quick\",\"max_tokens\":20,\"messages\":[]}",
                "Authorization: Bearer " + KEY,
                "X-Request-Id: " + id),
        200);
    // wrong key, unknown model, rate limit with Retry-After, unknown path
    assertSameBothWays(
        id ->
            RawHttp.post(
                "/v1/chat/completions",
                "{\"model\":\"quick\",\"stream\":true}",
                "Authorization: Bearer sk-wrong",
                "X-Request-Id: " + id),
        401);
    assertSameBothWays(
        id ->
            RawHttp.post(
                "/v1/chat/completions",
                "{\"model\":\"nope\",\"stream\":true}",
                "Authorization: Bearer " + KEY,
                "X-Request-Id: " + id),
        404);
    RawHttp.Response[] limited =
        assertSameBothWays(
            id ->
                RawHttp.post(
                    "/v1/chat/completions",
                    "{\"model\":\"limited\",\"stream\":true}",
                    "Authorization: Bearer " + KEY,
                    "X-Request-Id: " + id),
            429);
    assertEquals("7", limited[1].header("Retry-After"));
    assertSameBothWays(id -> RawHttp.get("/v1/nothing/here", "X-Request-Id: " + id), 404);
  }

  @Test
  void everyOtherPathIsPassedThrough() {
    RawHttp.Response[] models =
        assertSameBothWays(id -> RawHttp.get("/v1/models", "Authorization: Bearer " + KEY), 200);
    assertTrue(models[1].text().contains("\"quick\""));
  }

  @Test
  void oneClientConnectionCarriesSeveralRequests() {
    try (RawHttp http = new RawHttp(proxy.port())) {
      for (int i = 0; i < 3; i++) {
        RawHttp.Response r =
            http.send(
                RawHttp.post(
                    "/v1/chat/completions",
                    "{\"model\":\"quick\",\"stream\":true,\"max_tokens\":5}",
                    "Authorization: Bearer " + KEY,
                    "X-Request-Id: keepalive-" + i));
        assertEquals(200, r.status());
        assertTrue(r.complete());
        assertTrue(r.text().endsWith("data: [DONE]\n\n"), r.text());
        assertNull(r.header("Connection"));
      }
    }
  }

  @Test
  void aClientThatGoesAwayCancelsTheUpstreamCall() throws Exception {
    String id = "gone-1";
    try (RawHttp http = new RawHttp(proxy.port())) {
      http.write(
          RawHttp.post(
              "/v1/chat/completions",
              "{\"model\":\"slow\",\"stream\":true,\"max_tokens\":500}",
              "Authorization: Bearer " + KEY,
              "X-Request-Id: " + id));
      assertEquals(200, http.readHead().status());
      assertNotNull(http.readChunk());
    }
    RequestTruth truth = simulator.truth().awaitEnd(id, Duration.ofSeconds(10)).orElseThrow();
    assertEquals(Outcome.CLIENT_CLOSED, truth.outcome());
    assertTrue(truth.chunks().size() < 500, "sent " + truth.chunks().size() + " of 500 chunks");
  }

  @Test
  void anUpstreamThatBreaksMidStreamBreaksTheClientsResponse() {
    String request =
        RawHttp.post(
            "/v1/chat/completions",
            "{\"model\":\"cutter\",\"stream\":true,\"max_tokens\":50}",
            "Authorization: Bearer " + KEY,
            "X-Request-Id: cut-1");
    RawHttp.Response direct = RawHttp.exchange(simulator.port(), request);
    RawHttp.Response proxied = RawHttp.exchange(proxy.port(), request);
    assertFalse(direct.complete());
    assertFalse(proxied.complete());
    assertEquals(200, proxied.status());
    assertFalse(proxied.text().contains("[DONE]"));
  }

  /**
   * Sends the request from {@code build} (given a fresh request id) directly and through the proxy
   * at the same time and asserts that both read the same; returns {direct, proxied}. The
   * simulator's texts follow the request id, and its OpenAI bodies carry {@code created} (epoch
   * seconds): a pair that straddles a second boundary is sent again.
   */
  private static RawHttp.Response[] assertSameBothWays(
      java.util.function.Function<String, String> build, int status) {
    for (int attempt = 0; ; attempt++) {
      String request = build.apply("same-" + System.nanoTime());
      CompletableFuture<RawHttp.Response> direct =
          CompletableFuture.supplyAsync(() -> RawHttp.exchange(simulator.port(), request));
      RawHttp.Response proxied = RawHttp.exchange(proxy.port(), request);
      RawHttp.Response d = direct.join();
      if (attempt < 3 && !created(d).equals(created(proxied))) {
        continue;
      }
      assertEquals(status, proxied.status());
      assertEquals(d.statusLine(), proxied.statusLine());
      assertEquals(d.headerLines(), proxied.headerLines());
      assertArrayEquals(d.body(), proxied.body(), proxied.text());
      assertTrue(proxied.complete());
      return new RawHttp.Response[] {d, proxied};
    }
  }

  private static List<String> created(RawHttp.Response r) {
    Matcher m = CREATED.matcher(r.text());
    List<String> values = new java.util.ArrayList<>();
    while (m.find()) {
      values.add(m.group(1));
    }
    return values;
  }

  static JsonNode json(String text) throws Exception {
    return Json.MAPPER.readTree(text);
  }
}

package io.tpotstream.producer.http;

import static io.tpotstream.producer.testing.ScriptedServer.ROLE;
import static io.tpotstream.producer.testing.ScriptedServer.content;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.producer.RunResult;
import io.tpotstream.producer.testing.Runs;
import io.tpotstream.producer.testing.ScriptedServer;
import io.tpotstream.producer.testing.ScriptedServer.Script;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What no retry can fix stops a run within a handful of requests; what a retry can fix does not.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class FailFastTest {
  private static Map<String, String> keys(int concurrency, int total) {
    return Map.of(
        "api_key",
        "sk-wrong-KEY-123",
        "concurrency",
        Integer.toString(concurrency),
        "total_requests",
        Integer.toString(total),
        "warmup",
        "0");
  }

  @Test
  void aRefusedKeyStopsTheRunWithinTwiceTheConcurrency(TestKafka kafka) {
    try (ScriptedServer server = new ScriptedServer()) {
      server.on(
          "m",
          Script.status(401, "application/json")
              .write("{\"error\":{\"message\":\"Incorrect API key provided\"}}"));
      RunResult result = Runs.run(kafka, server.baseUrl(), "m", keys(4, 50)).result();

      int sent = server.received().size();
      assertTrue(sent <= 2 * 4, "requests sent to a refusing endpoint: " + sent);
      assertEquals(ErrorClass.HTTP_401, result.stoppedBy().errorClass());
      String why = result.nothingMeasured();
      assertTrue(why.startsWith("stopped after the first requests: HTTP 401 from POST "), why);
      assertTrue(why.contains("check the API key (taken from config key 'api_key')"), why);
      assertTrue(!why.contains("sk-wrong-KEY-123"), "the key is never printed: " + why);
    }
  }

  @Test
  void aRefusedKeyStopsAnEndpointWarmUpToo(TestKafka kafka) {
    try (ScriptedServer server = new ScriptedServer()) {
      server.on(
          "m",
          Script.status(401, "application/json")
              .write("{\"error\":{\"message\":\"Incorrect API key provided\"}}"));
      Map<String, String> keys = new java.util.HashMap<>(keys(4, 50));
      keys.put("warmup", "10s"); // warm-up requests to the endpoint: refused as well
      RunResult result = Runs.run(kafka, server.baseUrl(), "m", keys).result();
      assertTrue(server.received().size() <= 2 * 4, "sent: " + server.received().size());
      assertEquals(ErrorClass.HTTP_401, result.stoppedBy().errorClass());
    }
  }

  @Test
  void anUnknownModelStopsTheRun(TestKafka kafka) {
    try (ScriptedServer server = new ScriptedServer()) {
      server.on(
          "no-such-model",
          Script.status(404, "application/json")
              .write("{\"error\":{\"message\":\"The model does not exist\"}}"));
      RunResult result = Runs.run(kafka, server.baseUrl(), "no-such-model", keys(2, 30)).result();
      assertTrue(server.received().size() <= 4, "sent: " + server.received().size());
      assertEquals(ErrorClass.HTTP_404, result.stoppedBy().errorClass());
    }
  }

  @Test
  void aCertificateNoOneTrustsStopsTheRunAndIsNamed(TestKafka kafka) {
    try (ScriptedServer server = new ScriptedServer(true)) {
      server.on("m", Script.sse().write("data: [DONE]\n\n"));
      RunResult result = Runs.run(kafka, server.httpsUrl(), "m", keys(2, 40)).result();
      assertEquals(0, server.received().size(), "no request gets past the handshake");
      RequestFailure why = result.stoppedBy();
      assertEquals(ErrorClass.CONNECTION, why.errorClass());
      assertTrue(why.permanent());
      assertTrue(
          why.message()
              .startsWith(
                  "TLS handshake with 127.0.0.1:"
                      + server.port()
                      + " failed:"
                      + " the server's certificate was refused ("),
          why.message());
      assertTrue(why.message().endsWith("ca_file (--ca-file) or SSL_CERT_FILE"), why.message());
    }
  }

  @Test
  void serverErrorsAreTransientAndEveryRequestIsSentButTheRunSaysNothingWasMeasured(
      TestKafka kafka) {
    try (ScriptedServer server = new ScriptedServer()) {
      server.on("m", Script.status(503, "text/plain").write("overloaded"));
      RunResult result = Runs.run(kafka, server.baseUrl(), "m", keys(2, 6)).result();
      assertEquals(6, server.received().size(), "5xx is retried by the next request: all sent");
      assertNull(result.stoppedBy());
      assertEquals(
          "m: all 6 requests failed ({http_5xx=6}): nothing was measured; the last: HTTP 503 from"
              + " POST "
              + server.baseUrl()
              + "/v1/chat/completions (server said: overloaded): the server or gateway failed;"
              + " check its health and logs",
          result.nothingMeasured());
    }
  }

  @Test
  void aModelThatStreamsIsNeverStopped(TestKafka kafka) {
    try (ScriptedServer server = new ScriptedServer()) {
      server.on(
          "ok",
          Script.sse()
              .write("data: " + ROLE + "\n\n")
              .write("data: " + content("a") + "\n\n")
              .write("data: " + content("b") + "\n\n")
              .write("data: [DONE]\n\n"));
      RunResult result = Runs.run(kafka, server.baseUrl(), "ok", keys(2, 6)).result();
      assertEquals(6, server.received().size());
      assertNull(result.stoppedBy());
      assertNull(result.nothingMeasured());
    }
  }

  @Test
  void aMisspelledModelStopsAloneAndTheOtherIsMeasuredInFull(TestKafka kafka) {
    try (ScriptedServer server = new ScriptedServer()) {
      server.on(
          "good",
          Script.sse()
              .write("data: " + ROLE + "\n\n")
              .write("data: " + content("a") + "\n\n")
              .write("data: " + content("b") + "\n\n")
              .write("data: [DONE]\n\n"));
      server.on(
          "goood",
          Script.status(404, "application/json")
              .write("{\"error\":{\"message\":\"The model goood does not exist\"}}"));
      RunResult result = Runs.run(kafka, server.baseUrl(), "good,goood", keys(2, 10)).result();

      assertEquals(
          java.util.List.of("goood"), java.util.List.copyOf(result.stoppedModels().keySet()));
      var good = result.models().stream().filter(m -> m.model().equals("good")).findFirst().get();
      assertEquals(10, good.completed(), "the good model's requests, all of them");
      assertEquals(0, good.failed());
      long refused = server.received().stream().filter(r -> r.model().equals("goood")).count();
      assertTrue(refused >= 1 && refused <= 2, "requests of the stopped model: " + refused);
      String why = result.nothingMeasured();
      assertTrue(
          why.startsWith("model goood stopped after its first requests: HTTP 404 from POST "), why);
      assertTrue(why.contains("server said: The model goood does not exist"), why);
      assertTrue(why.endsWith("(the other models were measured)"), why);
    }
  }

  @Test
  void anEndpointWhereNobodyListensIsTriedAHandfulOfTimesNotHammered(TestKafka kafka)
      throws java.io.IOException {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nobody listens there
    }
    Map<String, String> keys = new java.util.HashMap<>(keys(4, 1));
    keys.remove("total_requests");
    keys.put("duration", "5s");
    RunResult result = Runs.run(kafka, "http://127.0.0.1:" + port + "/v1", "m", keys).result();

    var m = result.models().get(0);
    // up to 4 at once (the workers that started before the first refusal), then one try 0.25,
    // 0.75, 1.75 and 3.75 s after the first failure (a loaded machine may miss the last): a
    // handful,
    // not one per refused connection (thousands); EndpointBackoffTest holds the schedule exactly
    assertTrue(m.failed() >= 2 && m.failed() <= 9, "requests tried: " + m.failed());
    assertEquals(m.failed(), result.endpoint().failedTries(), "every try failed, in a row");
    assertEquals(java.util.Map.of("connection", m.failed()), m.errors());
    assertEquals(1, result.endpoint().backoffs());
    assertTrue(result.endpoint().backingOff());
    assertNull(result.stoppedBy(), "a refused connection may be an outage: retried, not stopped");
  }
}

package io.tpotstream.producer.http;

import static io.tpotstream.producer.testing.ScriptedServer.openAiStream;
import static io.tpotstream.producer.testing.TopicReader.byRequest;
import static io.tpotstream.producer.testing.TopicReader.types;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.producer.testing.Runs;
import io.tpotstream.producer.testing.ScriptedServer;
import io.tpotstream.producer.testing.ScriptedServer.Script;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Refused connections and dead proxies are class {@code connection}, naming what to check. */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class ConnectionErrorsTest {
  static final ScriptedServer server = new ScriptedServer();

  @AfterAll
  static void stop() {
    server.close();
  }

  static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static List<List<TokenEvent>> requests(Runs.Finished run) {
    return List.copyOf(byRequest(run.records()).values());
  }

  /** One request for {@code model} to the scripted server, with {@code env} as the environment. */
  private static Runs.Finished runOne(TestKafka kafka, String model, Map<String, String> env) {
    return Runs.run(
        kafka,
        Runs.config(
            Map.of("base_url", server.baseUrl(), "models", model, "total_requests", "1"), env));
  }

  @Test
  void refusedConnectionNamesHostAndPort(TestKafka kafka) throws IOException {
    int port = closedPort();
    Map<String, String> keys = Map.of("total_requests", "2", "concurrency", "1");
    Runs.Finished run = Runs.run(kafka, "http://127.0.0.1:" + port, "m", keys);
    assertEquals(Map.of("connection", 2L), run.result().models().get(0).errors());
    for (List<TokenEvent> events : requests(run)) {
      assertEquals(List.of("start", "error"), types(events));
      assertEquals(
          "cannot connect to 127.0.0.1:"
              + port
              + " (connection refused): check base_url (host and port) and that the server is up"
              + " (no proxy in use)",
          events.get(1).message());
    }
  }

  @Test
  void proxyThatRefusesConnectionsIsNamed(TestKafka kafka) throws IOException {
    int proxyPort = closedPort();
    server.on("p", Script.sse().write(openAiStream(2)));
    Runs.Finished run = runOne(kafka, "p", Map.of("HTTP_PROXY", "http://127.0.0.1:" + proxyPort));
    assertEquals(Map.of("connection", 1L), run.result().models().get(0).errors());
    TokenEvent error = requests(run).get(0).get(1);
    assertEquals("connection", error.errorClass());
    assertEquals(
        "cannot connect through proxy 127.0.0.1:"
            + proxyPort
            + " (from HTTP_PROXY) to 127.0.0.1:"
            + server.port()
            + " (connection refused): check HTTP_PROXY (a stale proxy?) or add the host to"
            + " NO_PROXY",
        error.message());
  }

  @Test
  void noProxyBypassesAStaleProxy(TestKafka kafka) throws IOException {
    server.on("np", Script.sse().write(openAiStream(3)));
    Map<String, String> env =
        Map.of("HTTP_PROXY", "http://127.0.0.1:" + closedPort(), "NO_PROXY", "localhost,127.0.0.1");
    Runs.Finished run = runOne(kafka, "np", env);
    assertEquals(List.of("start", "token", "token", "token", "end"), types(requests(run).get(0)));
  }
}

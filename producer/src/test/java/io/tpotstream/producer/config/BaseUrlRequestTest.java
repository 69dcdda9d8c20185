package io.tpotstream.producer.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.net.httpserver.HttpServer;
import io.tpotstream.producer.testing.Runs;
import io.tpotstream.producer.testing.ScriptedServer;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A real producer run against a real HTTP server that logs each request's path and query, for the
 * {@code base_url} spellings of the OpenAI seed script, Gemini's OpenAI-compatible API and Azure.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class BaseUrlRequestTest {

  @Test
  void eachSpellingReachesThePathAnOpenAiSdkWouldUse(TestKafka kafka) throws Exception {
    List<String> logged = new CopyOnWriteArrayList<>();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          logged.add(exchange.getRequestMethod() + " " + exchange.getRequestURI());
          exchange.getRequestBody().readAllBytes();
          byte[] body = ScriptedServer.openAiStream(3).getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    String host = "http://127.0.0.1:" + server.getAddress().getPort();
    try {
      Map<String, String> spellings = new LinkedHashMap<>();
      spellings.put(host, "POST /v1/chat/completions");
      spellings.put(host + "/v1beta/openai/", "POST /v1beta/openai/chat/completions");
      spellings.put(
          host + "/openai/deployments/gpt-4o?api-version=2024-10-21",
          "POST /openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21");
      for (Map.Entry<String, String> spelling : spellings.entrySet()) {
        logged.clear();
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("base_url", spelling.getKey());
        keys.put("models", "m");
        keys.put("concurrency", "1");
        keys.put("total_requests", "1");
        keys.put("api_key", "k");
        Runs.Finished run = Runs.run(kafka, Runs.config(keys));

        assertEquals(List.of(spelling.getValue()), logged, spelling.getKey());
        assertEquals(1, run.result().models().get(0).completed(), spelling.getKey());
      }
    } finally {
      server.stop(0);
    }
  }
}

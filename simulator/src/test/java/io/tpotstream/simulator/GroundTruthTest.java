package io.tpotstream.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.common.stats.HistogramCodec;
import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.simulator.profile.Distribution;
import io.tpotstream.simulator.profile.IntRange;
import io.tpotstream.simulator.profile.ModelProfile;
import io.tpotstream.simulator.truth.ChunkTruth;
import io.tpotstream.simulator.truth.Outcome;
import io.tpotstream.simulator.truth.RequestTruth;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GroundTruthTest {
  private static final ModelProfile FAST =
      ModelProfile.of(new Distribution.Constant(1), new Distribution.Constant(0.5));

  private static SseClient.Response stream(
      Simulator simulator, String model, int maxTokens, String id) {
    return SseClient.post(
        simulator.baseUrl() + "/v1/chat/completions",
        "{\"model\":\"" + model + "\",\"stream\":true,\"max_tokens\":" + maxTokens + "}",
        Map.of("X-Request-Id", id));
  }

  @Test
  void truthFileHasOneLinePerChunkMatchingTheRecordedSends(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("truth.jsonl");
    ModelProfile chunky = FAST.withTokensPerChunk(new IntRange(2, 2));
    try (Simulator simulator =
        Simulator.start(
            TestSimulators.config(1L)
                .withTruthFile(file)
                .withProfile("fast", FAST)
                .withProfile("pairs", chunky))) {
      stream(simulator, "fast", 20, "file-1");
      stream(simulator, "pairs", 9, "file-2");
      RequestTruth first = EndedTruth.of(simulator, "file-1");
      RequestTruth second = EndedTruth.of(simulator, "file-2");
      simulator.close();

      List<String> lines = Files.readAllLines(file);
      assertEquals(20 + 5, lines.size());
      for (int seq = 0; seq < 20; seq++) {
        JsonNode line = Json.MAPPER.readTree(lines.get(seq));
        List<String> fields =
            new ArrayList<>(
                List.of(
                    "requestId",
                    "model",
                    "seq",
                    "sentNs",
                    "tokens",
                    "intendedNs",
                    "pacingErrorNs"));
        if (seq == 0) {
          // the request's prompt: no messages, so 1 token, none of it in the prefix cache
          fields.addAll(List.of("promptTokens", "cachedTokens"));
          assertEquals(1, line.get("promptTokens").asInt());
          assertEquals(0, line.get("cachedTokens").asInt());
        }
        assertEquals(fields, iterable(line.fieldNames()));
        assertEquals("file-1", line.get("requestId").asText());
        assertEquals("fast", line.get("model").asText());
        assertEquals(seq, line.get("seq").asInt());
        ChunkTruth sent = first.chunks().get(seq);
        assertEquals(sent.sentNs(), line.get("sentNs").asLong());
        assertEquals(1, line.get("tokens").asInt());
        // the profile's constant 1 ms TTFT and the 1-token prompt's 10 µs, then 0.5 ms gaps
        assertEquals(seq == 0 ? 1_010_000 : 500_000, line.get("intendedNs").asLong());
        assertEquals(sent.sentNs() - sent.dueNs(), line.get("pacingErrorNs").asLong());
      }
      List<Integer> pairTokens =
          lines.subList(20, 25).stream().map(l -> read(l).get("tokens").asInt()).toList();
      assertEquals(List.of(2, 2, 2, 2, 1), pairTokens);
      assertEquals(
          List.of(2, 2, 2, 2, 1), second.chunks().stream().map(ChunkTruth::tokens).toList());
    }
  }

  private static long micros(JsonNode ms) {
    return ms.decimalValue().movePointRight(3).longValueExact();
  }

  private static JsonNode read(String line) {
    try {
      return Json.MAPPER.readTree(line);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<String> iterable(Iterator<String> names) {
    List<String> list = new ArrayList<>();
    names.forEachRemaining(list::add);
    return list;
  }

  @Test
  void truthEndpointReportsPerModelHistogramsOfWhatWasSent() {
    try (Simulator simulator =
        Simulator.start(TestSimulators.config(8L).withProfile("fast", FAST))) {
      stream(simulator, "fast", 30, "endpoint-1");
      stream(simulator, "fast", 10, "endpoint-2");
      SseClient.Response anthropic =
          SseClient.post(
              simulator.baseUrl() + "/v1/messages",
              "{\"model\":\"model-b\",\"stream\":true,\"max_tokens\":5}");
      for (String id : List.of("endpoint-1", "endpoint-2", anthropic.header("X-Request-Id"))) {
        EndedTruth.of(simulator, id);
      }

      JsonNode truth = SseClient.get(simulator.baseUrl() + "/truth").json();

      assertEquals(8, truth.path("seed").asLong());
      JsonNode fast = truth.path("models").path("fast");
      assertEquals(2, fast.path("requests").asInt());
      assertEquals(2, fast.path("outcomes").path("completed").asInt());
      assertEquals(40, fast.path("chunks").asInt());
      assertEquals(40, fast.path("tokens").asInt());
      assertEquals(29 + 9, fast.path("gap").path("count").asInt());
      assertEquals(40, fast.path("pacingError").path("count").asInt());
      assertEquals(2, fast.path("ttft").path("count").asInt());
      LatencyHistogram gaps = HistogramCodec.decode(fast.path("histograms").path("gap").asText());
      assertEquals(38, gaps.count());
      LatencyHistogram intended =
          HistogramCodec.decode(fast.path("histograms").path("intendedGap").asText());
      assertEquals(38, intended.count());
      assertEquals(500, intended.minMicros());
      assertEquals(500, intended.maxMicros());
      JsonNode pacing = truth.path("pacing");
      assertEquals(45, pacing.path("chunks").asInt());
      assertEquals(
          List.of("chunks", "p50Ms", "p99Ms", "maxMs", "limitMs", "withinLimit"),
          iterable(pacing.fieldNames()));
      assertEquals(200, micros(pacing.path("limitMs")));
      LatencyHistogram errors = new LatencyHistogram();
      for (String model : List.of("fast", "model-b")) {
        errors.add(
            HistogramCodec.decode(
                truth.path("models").path(model).path("histograms").path("pacingError").asText()));
      }
      assertEquals(errors.percentileMicros(99), micros(pacing.path("p99Ms")));
      assertEquals(errors.percentileMicros(99) <= 200, pacing.path("withinLimit").asBoolean());
      assertEquals(5, truth.path("models").path("model-b").path("chunks").asInt());
      assertTrue(truth.path("truthFile").isMissingNode());

      assertEquals(204, SseClient.delete(simulator.baseUrl() + "/truth").status());
      assertTrue(SseClient.get(simulator.baseUrl() + "/truth").json().path("models").isEmpty());
    }
  }

  @Test
  void warmUpLeavesNoTraceInTheTruthTheFileOrTheModelList(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("warm.jsonl");
    try (Simulator simulator =
        Simulator.start(
            SimulatorConfig.defaults().withPort(0).withWarmupChunks(400).withTruthFile(file))) {
      assertTrue(simulator.truth().models().isEmpty());
      assertTrue(simulator.truth().requests().isEmpty());
      JsonNode models = SseClient.get(simulator.openAiBaseUrl() + "/models").json();
      assertEquals(
          List.of("model-a", "model-b", "model-c"), models.path("data").findValuesAsText("id"));
      // nor in the engine's metrics: no model has served a request yet
      String metrics = SseClient.get(simulator.baseUrl() + "/metrics").body();
      assertEquals(List.of(), metrics.lines().filter(line -> !line.startsWith("#")).toList());
    }
    assertEquals(List.of(), Files.readAllLines(file));
  }

  @Test
  void aClientLeavingMidStreamIsRecordedAsClientClosedWithTheChunksSentSoFar() throws Exception {
    ModelProfile slow =
        ModelProfile.of(new Distribution.Constant(1), new Distribution.Constant(20));
    try (Simulator simulator =
            Simulator.start(
                SimulatorConfig.defaults()
                    .withPort(0)
                    .withWarmupChunks(0)
                    .withProfile("slow", slow));
        Socket socket = new Socket("127.0.0.1", simulator.port())) {
      String body = "{\"model\":\"slow\",\"stream\":true,\"max_tokens\":500}";
      String request =
          "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: leaver\r\n"
              + "Content-Type: application/json\r\nContent-Length: "
              + body.length()
              + "\r\n\r\n"
              + body;
      socket.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
      InputStream in = socket.getInputStream();
      int contentChunks = 0;
      StringBuilder text = new StringBuilder();
      while (contentChunks < 3) {
        int b = in.read();
        assertTrue(b >= 0, "stream ended early: " + text);
        text.append((char) b);
        if (text.toString().endsWith("\"content\":\"")
            && !text.toString().endsWith("{\"role\":\"assistant\",\"content\":\"")) {
          contentChunks++;
        }
      }
      socket.close();

      RequestTruth truth = EndedTruth.of(simulator, "leaver");
      assertEquals(Outcome.CLIENT_CLOSED, truth.outcome());
      // the engine counts it aborted, no longer running
      PrometheusText metrics =
          PrometheusText.parse(SseClient.get(simulator.baseUrl() + "/metrics").body());
      assertEquals(
          1, metrics.value("vllm:request_success_total", "slow", "finished_reason", "abort"));
      assertEquals(0, metrics.value("vllm:num_requests_running", "slow"));
      assertTrue(
          truth.chunks().size() >= 3 && truth.chunks().size() < 500,
          "sent " + truth.chunks().size());
    }
  }

  @Test
  void onlyTheMostRecentRequestsKeepTheirPerChunkTruth() {
    try (Simulator simulator =
        Simulator.start(
            SimulatorConfig.defaults()
                .withWarmupChunks(0)
                .withPort(0)
                .withRequestsKept(2)
                .withProfile("fast", FAST))) {
      for (int i = 1; i <= 3; i++) {
        stream(simulator, "fast", 3, "kept-" + i);
        EndedTruth.of(simulator, "kept-" + i);
      }
      assertEquals(
          List.of("kept-2", "kept-3"),
          simulator.truth().requests().stream().map(RequestTruth::requestId).toList());
      assertTrue(simulator.truth().request("kept-1").isEmpty());
      assertEquals(9, simulator.truth().models().get("fast").chunks());
    }
  }
}

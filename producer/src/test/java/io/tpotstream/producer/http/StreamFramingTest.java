package io.tpotstream.producer.http;

import static io.tpotstream.producer.testing.ScriptedServer.FINISH;
import static io.tpotstream.producer.testing.ScriptedServer.ROLE;
import static io.tpotstream.producer.testing.ScriptedServer.content;
import static io.tpotstream.producer.testing.ScriptedServer.openAiStream;
import static io.tpotstream.producer.testing.ScriptedServer.usage;
import static io.tpotstream.producer.testing.TopicReader.onlyRequestOf;
import static io.tpotstream.producer.testing.TopicReader.types;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenKind;
import io.tpotstream.producer.testing.Runs;
import io.tpotstream.producer.testing.ScriptedServer;
import io.tpotstream.producer.testing.ScriptedServer.Script;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every SSE framing a real gateway may send, served byte-exact by a real HTTP server, gives one
 * token event per output chunk, a start and an end.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class StreamFramingTest {
  static final int TOKENS = 6;
  static final ScriptedServer server = new ScriptedServer();

  @AfterAll
  static void stop() {
    server.close();
  }

  private static List<String> expected(int tokens) {
    List<String> types = new ArrayList<>();
    types.add("start");
    types.addAll(Collections.nCopies(tokens, "token"));
    types.add("end");
    return types;
  }

  private static String framed(String lineEnd) {
    return openAiStream(TOKENS).replace("\n", lineEnd);
  }

  @Test
  void everyOpenAiFramingGivesOneTokenEventPerContentChunk(TestKafka kafka) {
    String pings = openAiStream(TOKENS).replace("data: ", ": ping\nevent: message\nid: 7\ndata: ");
    String multiLine = openAiStream(TOKENS).replace("\"choices\":", "\n" + "data: \"choices\":");
    Map<String, Script> cases = new LinkedHashMap<>();
    cases.put("lf", Script.sse().write(openAiStream(TOKENS)));
    cases.put("crlf", Script.sse().write(framed("\r\n")));
    cases.put("cr", Script.sse().write(framed("\r")));
    cases.put("bom", Script.sse().write("\uFEFF" + openAiStream(TOKENS)));
    cases.put("pings", Script.sse().write(pings));
    cases.put("multiline", Script.sse().write(multiLine));
    cases.put("split", Script.sse().writeSplit(framed("\r\n"), 7, 1));
    cases.put("bytewise", Script.sse().writeSplit(openAiStream(TOKENS), 1, 0));
    cases.put(
        "malformed",
        Script.sse()
            .write("data: " + ROLE + "\n\n")
            .write("data: " + content("a") + "\n\n")
            .write("data: {\"choices\":[{\"delta\":\n\n")
            .write(openAiStream(TOKENS - 1).substring(("data: " + ROLE + "\n\n").length())));
    cases.put(
        "no-done-after-finish",
        Script.sse().write(openAiStream(TOKENS).replace("data: [DONE]\n\n", "")));
    cases.put(
        "done-without-blank-line",
        Script.sse().write(openAiStream(TOKENS).replace("data: [DONE]\n\n", "data: [DONE]")));
    cases.put(
        "kinds",
        Script.sse()
            .write("data: " + ROLE + "\n\n")
            .write("data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"think\"}}]}\n\n")
            .write("data: {\"choices\":[{\"delta\":{\"content\":\"\"}}]}\n\n")
            .write(
                "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{}\"}}]}}]}\n\n")
            .write("data: " + content("x") + "\n\n")
            .write("data: " + FINISH + "\n\n")
            .write("data: " + usage(3, 3) + "\n\ndata: [DONE]\n\n"));
    cases.forEach(server::on);

    Map<String, String> keys = new LinkedHashMap<>();
    keys.put("base_url", server.baseUrl());
    keys.put("api_key", "sk-framing-secret");
    keys.put("models", String.join(",", cases.keySet()));
    keys.put("total_requests", "1");
    keys.put("concurrency", Integer.toString(cases.size()));
    Runs.Finished run = Runs.run(kafka, Runs.config(keys));

    for (String model : cases.keySet()) {
      List<TokenEvent> events = onlyRequestOf(run.records(), model);
      int tokens = model.equals("kinds") ? 3 : TOKENS;
      assertEquals(expected(tokens), types(events), model);
      TokenEvent end = events.get(events.size() - 1);
      assertEquals(tokens, end.seq(), model + ": chunks on the end event");
      for (int i = 1; i <= tokens; i++) {
        assertEquals(i - 1, events.get(i).seq(), model);
        assertTrue(events.get(i).elapsedNs() >= events.get(i - 1).elapsedNs(), model);
      }
      assertEquals(
          model.equals("malformed") ? Integer.valueOf(1) : null, end.malformedChunks(), model);
    }
    List<TokenEvent> lf = onlyRequestOf(run.records(), "lf");
    TokenEvent end = lf.get(lf.size() - 1);
    assertEquals(7, end.promptTokens());
    assertEquals(TOKENS, end.completionTokens());
    assertEquals("stop", end.finishReason());
    assertNull(end.errorClass());
    List<TokenEvent> kinds = onlyRequestOf(run.records(), "kinds");
    assertEquals(
        List.of(TokenKind.REASONING, TokenKind.TOOL, TokenKind.CONTENT),
        kinds.subList(1, 4).stream().map(TokenEvent::kind).toList());

    // the producer's own table counts what it saw: every model completed, none failed
    run.result()
        .models()
        .forEach(
            m -> {
              assertEquals(1, m.completed(), m.model());
              assertEquals(0, m.failed(), m.model());
            });
  }

  @Test
  void requestsCarryTheHeadersAStreamNeeds(TestKafka kafka) {
    server.on("headers", Script.sse().write(openAiStream(2)));
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put("base_url", server.baseUrl() + "/v1/");
    keys.put("api_key", "sk-header-secret");
    keys.put("models", "headers");
    keys.put("total_requests", "2");
    keys.put("headers.X-Team", "tpot");
    keys.put("extra_body.temperature", "0");
    Runs.Finished run = Runs.run(kafka, Runs.config(keys));

    List<ScriptedServer.Received> got =
        server.received().stream().filter(r -> r.model().equals("headers")).toList();
    assertEquals(2, got.size());
    List<String> requestIds =
        new ArrayList<>(
            run.records().stream()
                .filter(r -> r.event().requestId() != null)
                .map(r -> r.event().requestId())
                .distinct()
                .sorted()
                .toList());
    List<String> sentIds =
        new ArrayList<>(got.stream().map(r -> r.headers().get("X-Request-Id")).sorted().toList());
    assertEquals(requestIds, sentIds);
    for (ScriptedServer.Received r : got) {
      assertEquals("/v1/chat/completions", r.path());
      assertEquals("Bearer sk-header-secret", r.headers().get("Authorization"));
      assertEquals("identity", r.headers().get("Accept-Encoding"));
      assertEquals("text/event-stream", r.headers().get("Accept"));
      assertEquals("tpot", r.headers().get("X-Team"));
      assertEquals(true, r.body().getBoolean("stream"));
      assertEquals(true, r.body().getJsonObject("stream_options").getBoolean("include_usage"));
      assertEquals(0, r.body().getInteger("temperature"));
      assertEquals(256, r.body().getInteger("max_tokens"));
    }
  }

  @Test
  void deltasOf2MbAreMeasuredAndAnEventPastTheCapEndsOnlyItsOwnRequest(TestKafka kafka) {
    String delta = content("A".repeat(2_000_000));
    server.on(
        "deltas",
        Script.sse()
            .write("data: " + delta + "\n\n")
            .write("data: " + delta + "\n\n")
            .write("data: " + FINISH + "\n\ndata: [DONE]\n\n"));
    // one line of 5 MB that the server never ends
    server.on("endless", Script.sse().write("data: " + "A".repeat(5_000_000)).pause(60_000));
    server.on("ordinary", Script.sse().write(openAiStream(3)));
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put("base_url", server.baseUrl());
    keys.put("models", "deltas,endless,ordinary");
    keys.put("total_requests", "1");
    keys.put("concurrency", "3");
    Runs.Finished run = Runs.run(kafka, Runs.config(keys));

    assertEquals(expected(2), types(onlyRequestOf(run.records(), "deltas")));
    assertEquals(expected(3), types(onlyRequestOf(run.records(), "ordinary")));
    List<TokenEvent> endless = onlyRequestOf(run.records(), "endless");
    assertEquals(List.of("start", "error"), types(endless));
    assertEquals("protocol", endless.get(1).errorClass());
    assertEquals(
        "the event stream from POST "
            + server.baseUrl()
            + "/v1/chat/completions carried an SSE event of more than 4,194,304 bytes (tpot's cap"
            + " per event) after 0 token chunks: the response was cut and measured no further",
        endless.get(1).message());
  }
}

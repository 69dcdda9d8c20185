package io.tpotstream.producer.http;

import static io.tpotstream.producer.testing.ScriptedServer.ROLE;
import static io.tpotstream.producer.testing.ScriptedServer.content;
import static io.tpotstream.producer.testing.ScriptedServer.openAiStream;
import static io.tpotstream.producer.testing.TopicReader.onlyRequestOf;
import static io.tpotstream.producer.testing.TopicReader.types;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.producer.result.ModelResult;
import io.tpotstream.producer.result.ResultTable;
import io.tpotstream.producer.testing.Runs;
import io.tpotstream.producer.testing.ScriptedServer;
import io.tpotstream.producer.testing.ScriptedServer.Script;
import io.tpotstream.producer.testing.TopicReader;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Each failure a user meets lands in its error class with a message that says what to check; a
 * stream that breaks keeps the tokens it delivered; the API key appears nowhere.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class ErrorClassesTest {
  static final String KEY = "sk-error-SECRET-42";
  static final ScriptedServer server = new ScriptedServer();

  /** Failures that stop a run (FailFast): each gets a run of its own, so none stops another. */
  static final List<String> STOPPING = List.of("e401", "e403", "e404");

  static Runs.Finished run;
  static final Map<String, Runs.Finished> stopped = new LinkedHashMap<>();

  static String tokens(int n) {
    StringBuilder s = new StringBuilder("data: " + ROLE + "\n\n");
    for (int i = 0; i < n; i++) {
      s.append("data: ").append(content("t" + i)).append("\n\n");
    }
    return s.toString();
  }

  @BeforeAll
  static void runEveryCaseOnce(TestKafka kafka) {
    // a first run warms both JVM sides (server and client), so that the short timeouts below
    // measure the cases, not class loading
    server.on("warmup", Script.sse().write(openAiStream(2)));
    Runs.run(kafka, server.baseUrl(), "warmup", Map.of("total_requests", "20"));
    Map<String, Script> cases = new LinkedHashMap<>();
    cases.put(
        "e401",
        Script.status(401, "application/json")
            .write(
                "{\"error\":{\"message\":\"Incorrect API key provided: "
                    + KEY
                    + ".\",\"type\":\"invalid_request_error\"}}"));
    cases.put(
        "e403",
        Script.status(403, "application/json")
            .write("{\"error\":{\"message\":\"model not allowed for this key\"}}"));
    cases.put(
        "e404",
        Script.status(404, "application/json")
            .write("{\"error\":{\"message\":\"The model does not exist\"}}"));
    cases.put(
        "e429",
        Script.status(429, "application/json")
            .header("Retry-After", "7")
            .write("{\"error\":{\"message\":\"Rate limit reached\"}}"));
    cases.put(
        "e400",
        Script.status(400, "application/json")
            .write("{\"error\":{\"message\":\"bad request for key " + KEY + "\"}}"));
    cases.put(
        "e503",
        Script.status(503, "text/html")
            .write(
                "<html><head><title>503 Service Temporarily Unavailable</title></head>"
                    + "<body><center>nginx</center></body></html>"));
    cases.put(
        "html200",
        Script.status(200, "text/html; charset=utf-8")
            .write("<!DOCTYPE html><html><head><title>Sign in</title></head><body/></html>"));
    cases.put(
        "json200",
        Script.status(200, "application/json")
            .write(
                "{\"id\":\"x\",\"object\":\"chat.completion\",\"choices\":[{\"message\":{\"content\":\"hi\"}}]}"));
    cases.put(
        "nochoices",
        Script.sse()
            .write(tokens(3))
            .write("data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\"}\n\n")
            .write(tokens(2)));
    cases.put(
        "errorobj",
        Script.sse()
            .write(tokens(2))
            .write(
                "data: {\"error\":{\"message\":\"upstream overloaded\",\"type\":\"server_error\"}}\n\n"));
    // a gateway that refuses inside a 200 event stream (a key checked after the head went out)
    cases.put(
        "inband401",
        Script.sse()
            .write(
                "data: {\"error\":{\"message\":\"Access denied due to invalid subscription"
                    + " key\",\"type\":\"authentication_error\",\"code\":401}}\n\n")
            .write("data: [DONE]\n\n"));
    cases.put("cut", Script.sse().write(tokens(4)).pause(50).cut());
    cases.put("truncated", Script.sse().write(tokens(4)));
    cases.put(
        "stall-first",
        Script.sse().write("data: " + ROLE + "\n\n").pause(2500).write(openAiStream(2)));
    cases.put("stall-idle", Script.sse().write(tokens(2)).pause(2500).write(openAiStream(2)));
    Script slow = Script.sse().write("data: " + ROLE + "\n\n");
    for (int i = 0; i < 60; i++) {
      slow.write("data: " + content("s" + i) + "\n\n").pause(100);
    }
    cases.put("slow", slow);
    cases.put("empty", Script.sse());
    cases.put(
        "redirect",
        Script.status(301, "text/html")
            .header("Location", "https://elsewhere.example/v1/chat/completions"));
    cases.put("text", Script.status(200, "text/plain").write("hello, not a stream"));
    cases.forEach(server::on);
    for (String model : STOPPING) {
      stopped.put(model, Runs.run(kafka, Runs.config(keys(List.of(model)))));
    }
    List<String> rest = new ArrayList<>(cases.keySet());
    rest.removeAll(STOPPING);
    run = Runs.run(kafka, Runs.config(keys(rest)));
  }

  private static Map<String, String> keys(List<String> models) {
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put("base_url", server.baseUrl());
    keys.put("api_key", KEY);
    keys.put("models", String.join(",", models));
    keys.put("total_requests", "1");
    keys.put("concurrency", Integer.toString(models.size()));
    keys.put("timeouts.first_token", "1s");
    keys.put("timeouts.idle", "1s");
    keys.put("timeouts.total", "3s");
    return keys;
  }

  private static Runs.Finished runOf(String model) {
    return stopped.getOrDefault(model, run);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static TokenEvent error(String model) {
    Runs.Finished run = runOf(model);
    List<TokenEvent> events = onlyRequestOf(run.records(), model);
    TokenEvent last = events.get(events.size() - 1);
    assertEquals(EventType.ERROR, last.type(), model + ": " + types(events));
    assertEquals(events.size() - 2, last.seq(), model + ": chunks on the error event");
    ModelResult result =
        run.result().models().stream()
            .filter(m -> m.model().equals(model))
            .findFirst()
            .orElseThrow();
    assertEquals(Map.of(last.errorClass(), 1L), result.errors(), model);
    return last;
  }

  @Test
  void http401SaysCheckTheKeyAndHidesIt() {
    TokenEvent e = error("e401");
    assertEquals("http_401", e.errorClass());
    assertEquals(401, e.httpStatus());
    assertEquals(
        "HTTP 401 from POST "
            + server.baseUrl()
            + "/v1/chat/completions (server said: Incorrect API key provided: ***.): check the API"
            + " key (taken from config key 'api_key')",
        e.message());
  }

  @Test
  void http403And400AreClassedAndExplained() {
    assertEquals("http_403", error("e403").errorClass());
    assertTrue(error("e403").message().contains("check the key's permissions"));
    TokenEvent bad = error("e400");
    assertEquals("http_4xx", bad.errorClass());
    assertEquals(400, bad.httpStatus());
    assertTrue(bad.message().contains("bad request for key ***"), bad.message());
  }

  @Test
  void http404ShowsTheUrlTried() {
    TokenEvent e = error("e404");
    assertEquals("http_404", e.errorClass());
    assertTrue(
        e.message()
            .contains(
                "check base_url and path (URL tried: "
                    + server.baseUrl()
                    + "/v1/chat/completions)"),
        e.message());
  }

  @Test
  void http429NotesRetryAfter() {
    TokenEvent e = error("e429");
    assertEquals("http_429", e.errorClass());
    assertTrue(e.message().contains("rate limited (Retry-After: 7)"), e.message());
    assertTrue(e.message().contains("lower concurrency or rate"), e.message());
  }

  @Test
  void htmlErrorPageIsAServerErrorWithItsTitle() {
    TokenEvent e = error("e503");
    assertEquals("http_5xx", e.errorClass());
    assertEquals(503, e.httpStatus());
    assertTrue(e.message().contains("HTML page: 503 Service Temporarily Unavailable"), e.message());
  }

  @Test
  void answersThatAreNotStreamsAreProtocolErrors() {
    TokenEvent html = error("html200");
    assertEquals("protocol", html.errorClass());
    assertTrue(html.message().contains("is an HTML page (HTML page: Sign in)"), html.message());
    TokenEvent json = error("json200");
    assertEquals("protocol", json.errorClass());
    assertTrue(json.message().contains("is JSON, not an event stream"), json.message());
    assertEquals("protocol", error("empty").errorClass());
    assertTrue(error("empty").message().contains("had no server-sent events"));
    assertEquals("protocol", error("text").errorClass());
    assertTrue(error("text").message().contains("hello, not a stream"), error("text").message());
  }

  @Test
  void redirectIsNotFollowedAndNamesTheTarget() {
    TokenEvent e = error("redirect");
    assertEquals("protocol", e.errorClass());
    assertEquals(301, e.httpStatus());
    assertTrue(
        e.message().contains("redirected to https://elsewhere.example/v1/chat/completions"),
        e.message());
  }

  @Test
  void chunkWithoutChoicesOrWithAnErrorObjectFailsAfterItsTokens() {
    List<TokenEvent> noChoices = onlyRequestOf(run.records(), "nochoices");
    assertEquals(List.of("start", "token", "token", "token", "error"), types(noChoices));
    assertEquals("protocol", error("nochoices").errorClass());
    assertTrue(error("nochoices").message().startsWith("chunk without 'choices'"));
    List<TokenEvent> errorObject = onlyRequestOf(run.records(), "errorobj");
    assertEquals(List.of("start", "token", "token", "error"), types(errorObject));
    assertEquals(
        "error in the stream: server_error: upstream overloaded", error("errorobj").message());
  }

  @Test
  void aRefusalInsideAnEventStreamIsAnErrorNotASuccess() {
    assertEquals(List.of("start", "error"), types(onlyRequestOf(run.records(), "inband401")));
    assertEquals(
        "error in the stream: authentication_error: Access denied due to invalid subscription key",
        error("inband401").message());
  }

  @Test
  void cutStreamGivesItsTokensPlusAnError() {
    List<TokenEvent> cut = onlyRequestOf(run.records(), "cut");
    assertEquals(List.of("start", "token", "token", "token", "token", "error"), types(cut));
    assertEquals("truncated", error("cut").errorClass());
    assertTrue(
        error("cut").message().contains("was cut after 4 token chunks"), error("cut").message());
    List<TokenEvent> truncated = onlyRequestOf(run.records(), "truncated");
    assertEquals(List.of("start", "token", "token", "token", "token", "error"), types(truncated));
    assertEquals("truncated", error("truncated").errorClass());
    assertTrue(error("truncated").message().contains("without [DONE] or a finish reason"));
    // the gaps seen before the failure are still TPOT samples: 3 per 4-token request
    ModelResult cutResult =
        run.result().models().stream()
            .filter(m -> m.model().equals("cut"))
            .findFirst()
            .orElseThrow();
    assertEquals(3, cutResult.tpot().count());
  }

  @Test
  void timeoutsAreClassedByPhase() {
    TokenEvent first = error("stall-first");
    assertEquals("timeout_first_token", first.errorClass());
    assertTrue(first.elapsedNs() >= 1_000_000_000L && first.elapsedNs() < 2_500_000_000L);
    List<TokenEvent> idle = onlyRequestOf(run.records(), "stall-idle");
    assertEquals(List.of("start", "token", "token", "error"), types(idle));
    assertEquals("timeout_idle", error("stall-idle").errorClass());
    TokenEvent total = error("slow");
    assertEquals("timeout_total", total.errorClass());
    assertTrue(total.seq() >= 5, "the slow stream delivered tokens before its total timeout");
  }

  @Test
  void theKeyAppearsNowhereInTheTopicOrTheOutput() {
    List<Runs.Finished> all = new ArrayList<>(stopped.values());
    all.add(run);
    for (Runs.Finished finished : all) {
      for (TopicReader.Rec r : finished.records()) {
        assertFalse(r.raw().contains(KEY), r.raw());
        assertFalse(r.raw().contains("SECRET"), r.raw());
      }
    }
    String table = ResultTable.format(runOf("e401").result());
    assertFalse(table.contains(KEY));
    assertTrue(table.contains("errors e401: http_401=1"), table);
  }
}

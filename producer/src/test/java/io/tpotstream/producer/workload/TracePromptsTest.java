package io.tpotstream.producer.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tpotstream.common.Json;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.simulator.profile.Profiles;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A trace's prompts: the same hash id is the same text in every request (the last block cut at the
 * prompt's length), the rest is the request's own; a later turn carries its session's earlier turns
 * as user and assistant messages at their lengths; and the simulator counts exactly the trace's
 * input length as the prompt's tokens.
 */
class TracePromptsTest {
  private static TraceRequest line(long line, int input, int output, long... ids) {
    return request(line, input, output, null, null, null, ids);
  }

  private static TraceRequest request(
      long line, int input, int output, String model, String session, Integer turn, long... ids) {
    return new TraceRequest(
        line,
        line * 10,
        input,
        output,
        ids,
        16,
        model,
        Collections.emptySortedMap(),
        session,
        turn,
        null);
  }

  /** Tokens {@code from} to {@code to} of a prompt (four characters each). */
  private static String tokens(String prompt, int from, int to) {
    return prompt.substring(from * 4, to * 4);
  }

  @Test
  void theSameHashIdIsTheSameTextInEveryRequestAndTheRestIsEachRequestsOwn() {
    TracePrompts prompts = new TracePrompts(16);
    String a = prompts.prompt(line(1, 48, 5, 5, 6, 7), 1);
    String b = prompts.prompt(line(2, 40, 5, 5, 6, 9), 2);
    String c = new TracePrompts(16).prompt(line(3, 20, 5, 9), 3);
    assertEquals(48 * 4, a.length());
    assertEquals(40 * 4, b.length());
    assertEquals(tokens(a, 0, 32), tokens(b, 0, 32), "ids 5 and 6: the same two blocks");
    assertNotEquals(tokens(a, 32, 48), tokens(b, 32, 40) + tokens(a, 40, 48));
    assertEquals(tokens(b, 32, 40), tokens(c, 0, 8), "id 9 cut at b's end is the start of c's");
    assertEquals(TracePrompts.block(9, 16), tokens(c, 0, 16), "in another instance too");
    assertEquals(TracePrompts.block(5, 16), tokens(a, 0, 16));
    assertNotEquals(TracePrompts.block(5, 16), TracePrompts.block(5, 32).substring(0, 64));
    // past its ids a prompt is its own: the same line with another number shares only its blocks
    String again = prompts.prompt(line(3, 20, 5, 9), 4);
    assertEquals(tokens(c, 0, 16), tokens(again, 0, 16));
    assertNotEquals(tokens(c, 16, 20), tokens(again, 16, 20));
    String none1 = prompts.prompt(line(4, 30, 5), 5);
    String none2 = prompts.prompt(line(4, 30, 5), 6);
    assertNotEquals(tokens(none1, 0, 4), tokens(none2, 0, 4), "no ids: nothing shared");
    assertTrue(a.matches("( [a-z]{3})+"), "a space and a three-letter word per token");
  }

  @Test
  void aLaterTurnCarriesItsSessionsEarlierTurnsAtTheirLengths() {
    TraceSessions sessions = new TraceSessions(16);
    List<String> models = List.of("a", "b");
    TraceSessions.Next t1 =
        sessions.next(0, request(1, 40, 10, null, "s", 1, 1, 2), models, m -> false, 11);
    TraceSessions.Next other = sessions.next(1, line(2, 30, 5), models, m -> false, 12);
    TraceSessions.Next t2 =
        sessions.next(3, request(3, 70, 6, null, "s", 2, 1, 2, 3), models, m -> false, 13);
    TraceSessions.Next t3 =
        sessions.next(4, request(4, 90, 6, "b", "s", 3, 1, 2, 3), models, m -> false, 14);
    assertEquals("a", t1.model(), "request 0: the first model");
    assertEquals("b", other.model(), "request 1: the next");
    assertEquals("a", t2.model(), "a session stays on its model (request 3 would go to b)");
    assertEquals("b", t3.model(), "unless its line names one the run has");
    assertEquals(List.of("user"), roles(t1.turn().messages()));
    assertEquals(List.of("user", "assistant", "user"), roles(t2.turn().messages()));
    assertEquals(
        List.of(40, 10, 20),
        lengths(t2.turn().messages()),
        "turn 1's prompt, its output, the rest");
    assertEquals(
        List.of("user", "assistant", "user", "assistant", "user"), roles(t3.turn().messages()));
    assertEquals(List.of(40, 10, 20, 6, 14), lengths(t3.turn().messages()));
    assertEquals(70, t2.turn().inputTokens());
    assertEquals(6, t2.turn().maxTokens(), "the output length, asked as max_tokens");
    // the first two blocks (ids 1 and 2) are turn 1's prompt in turn 2's history
    assertEquals(
        text(t1.turn().messages()).substring(0, 32 * 4),
        text(t2.turn().messages()).substring(0, 32 * 4));
    // the order of the turns: turn 2 after turn 1, turn 3 after turn 2
    assertNull(t1.after());
    assertSame(t1.done(), t2.after());
    assertSame(t2.done(), t3.after());
    assertNull(other.after());
    t3.done().complete(null);
    // a history longer than the prompt does not fit: one message of the line's length
    TraceSessions.Next shorter =
        sessions.next(5, request(5, 50, 6, null, "s", 4), models, m -> false, 15);
    assertEquals(List.of(50), lengths(shorter.turn().messages()));
    assertNull(shorter.after(), "turn 3 had ended");
    assertNull(
        sessions.next(6, request(6, 50, 6, null, "t", 1), models, "a"::equals, 16),
        "request 6 goes to a: a stopped model gets nothing");
    sessions.clear();
    TraceSessions.Next restarted =
        sessions.next(7, request(7, 90, 6, null, "s", 3), models, m -> false, 17);
    assertEquals(List.of(90), lengths(restarted.turn().messages()), "a new pass starts afresh");
  }

  @Test
  @Tag("slow") // a simulator starts
  void theSimulatorCountsExactlyTheTracesInputLength() throws Exception {
    SimulatorConfig config =
        SimulatorConfig.defaults()
            .withPort(0)
            .withSeed(3L)
            .withEventLoops(1)
            .withProfile(
                "m", Profiles.parse("{\"models\": {\"m\": {\"ttft\": 1, \"gap\": 1}}}").get("m"));
    HttpClient http = HttpClient.newHttpClient();
    try (Simulator simulator = Simulator.start(config)) {
      SplittableRandom random = new SplittableRandom(9);
      TraceSessions sessions = new TraceSessions(64);
      List<int[]> checked = new ArrayList<>();
      int input = 0;
      for (int n = 0; n < 40; n++) {
        // sessions of four turns whose prompts grow, and lengths from 1 token to 5,000
        boolean turn = n % 5 != 0;
        input = turn ? input + 6 + random.nextInt(300) : 1 + random.nextInt(5000);
        TraceRequest r =
            new TraceRequest(
                n + 1,
                n,
                n == 1 ? 1 : input,
                1,
                new long[] {n % 3, 7},
                64,
                null,
                Collections.emptySortedMap(),
                "s" + n / 5,
                null,
                null);
        TraceSessions.Next next = sessions.next(n, r, List.of("m"), m -> false, n);
        ObjectNode body = Json.MAPPER.createObjectNode();
        body.put("model", "m").put("max_tokens", 1).put("stream", false);
        body.set("messages", next.turn().messages());
        HttpResponse<String> answer =
            http.send(
                HttpRequest.newBuilder(URI.create(simulator.baseUrl() + "/chat/completions"))
                    .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                    .header("Content-Type", "application/json")
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, answer.statusCode(), answer.body());
        JsonNode usage = Json.MAPPER.readTree(answer.body()).path("usage");
        checked.add(new int[] {r.inputTokens(), usage.path("prompt_tokens").asInt()});
        next.done().complete(null);
      }
      for (int[] c : checked) {
        assertEquals(c[0], c[1], "prompt tokens as the simulator counts them");
      }
      assertTrue(checked.stream().map(c -> c[0]).distinct().count() > 30, "lengths of all sizes");
      assertEquals(1, checked.get(1)[0], "one token: the least a prompt has");
    }
  }

  private static List<String> roles(ArrayNode messages) {
    List<String> roles = new ArrayList<>();
    messages.forEach(m -> roles.add(m.get("role").asText()));
    return roles;
  }

  private static List<Integer> lengths(ArrayNode messages) {
    List<Integer> lengths = new ArrayList<>();
    messages.forEach(m -> lengths.add(m.get("content").asText().length() / 4));
    return lengths;
  }

  private static String text(ArrayNode messages) {
    StringBuilder all = new StringBuilder();
    messages.forEach(m -> all.append(m.get("content").asText()));
    return all.toString();
  }
}

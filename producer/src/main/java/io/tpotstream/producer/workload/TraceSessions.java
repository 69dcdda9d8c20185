package io.tpotstream.producer.workload;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tpotstream.producer.config.ConfigException;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * A trace's requests as they are replayed, made into what to send: the model (the line's when the
 * run has it, else the session's, else the run's models in turn), the prompt ({@link TracePrompts})
 * as messages, and the order of a session's turns. A later turn of a session carries its earlier
 * turns as history, as {@link Dataset}'s conversations do: its prompt, whose length the trace
 * gives, is cut into user and assistant messages at the lengths of the earlier turns' prompts and
 * outputs (when they fit: a prompt shorter than its history goes as one message), so the content
 * adds up to the line's {@code input_length} exactly. A later turn goes only after the turn before
 * it ended ({@link Next#after}). At most {@value #MAX_SESSIONS} sessions are followed at once (the
 * least recent is forgotten: its next turn starts afresh), each with its last {@value #MAX_HISTORY}
 * turns. Not thread-safe.
 */
public final class TraceSessions {
  static final int MAX_SESSIONS = 100_000;
  static final int MAX_HISTORY = 64;

  /**
   * What to send for one line.
   *
   * @param after completes when the session's turn before this one has ended; null when there is
   *     none to wait for
   * @param done to complete when this request has ended (whatever its outcome)
   */
  public record Next(
      String model, Turn turn, CompletableFuture<Void> after, CompletableFuture<Void> done) {}

  private static final class Session {
    String model;
    long lastTurn = -1;
    long lastLine;
    final ArrayDeque<int[]> history = new ArrayDeque<>();
    CompletableFuture<Void> last;
  }

  private final TracePrompts prompts;
  private final Map<String, Session> sessions =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Session> eldest) {
          return size() > MAX_SESSIONS;
        }
      };

  /** Sessions of a trace with blocks of {@code blockSize} tokens. */
  public TraceSessions(int blockSize) {
    this.prompts = new TracePrompts(blockSize);
  }

  /** Forgets every session: a trace that starts again starts its conversations again. */
  public void clear() {
    sessions.clear();
  }

  /**
   * Checks that {@code r} comes after its session's turn before it, without making anything (the
   * check a trace gets before its replay).
   *
   * @param where names the trace in the message ({@code config key 'trace': FILE})
   * @throws ConfigException when a turn comes after a later one of its session
   */
  public void check(TraceRequest r, String where) {
    if (r.sessionId() == null) {
      return;
    }
    Session session = sessions.computeIfAbsent(r.sessionId(), k -> new Session());
    long before = session.lastTurn;
    long beforeLine = session.lastLine;
    if (!follows(session, r)) {
      throw new ConfigException(
          where
              + " line "
              + r.line()
              + ": turn "
              + r.turn()
              + " of session "
              + JsonLinesTraceReader.cut(r.sessionId())
              + " comes after its turn "
              + before
              + " (line "
              + beforeLine
              + "): a session's turns must be in time order");
    }
  }

  /**
   * What to send for line {@code r}, the {@code n}th request of the replay, whose text past its
   * hash ids is drawn from {@code unique}; null when its model is {@code stopped}.
   */
  public Next next(
      long n, TraceRequest r, List<String> models, Predicate<String> stopped, long unique) {
    Session session =
        r.sessionId() == null ? null : sessions.computeIfAbsent(r.sessionId(), k -> new Session());
    if (session != null) {
      follows(session, r); // checked before the replay
    }
    String model;
    if (r.model() != null && models.contains(r.model())) {
      model = r.model();
    } else if (session != null && session.model != null) {
      model = session.model;
    } else {
      model = models.get((int) Math.floorMod(n, (long) models.size()));
    }
    String prompt = prompts.prompt(r, unique);
    ArrayNode messages = messages(prompt, r.inputTokens(), session);
    Turn turn = new Turn(messages, r.outputTokens(), r.inputTokens());
    if (session == null) {
      return stopped.test(model) ? null : new Next(model, turn, null, new CompletableFuture<>());
    }
    if (session.model == null) {
      session.model = model;
    }
    session.history.addLast(new int[] {r.inputTokens(), r.outputTokens()});
    if (session.history.size() > MAX_HISTORY) {
      session.history.removeFirst();
    }
    if (stopped.test(model)) {
      return null;
    }
    CompletableFuture<Void> after = session.last;
    CompletableFuture<Void> done = new CompletableFuture<>();
    session.last = done;
    return new Next(model, turn, after == null || after.isDone() ? null : after, done);
  }

  /** Notes {@code r} as its session's latest turn; false when it comes after a later one. */
  private static boolean follows(Session session, TraceRequest r) {
    long turn = r.turn() != null ? r.turn() : session.lastTurn + 1;
    boolean inOrder = turn > session.lastTurn;
    session.lastTurn = Math.max(turn, session.lastTurn);
    session.lastLine = r.line();
    return inOrder;
  }

  /**
   * {@code prompt} ({@code tokens} tokens) as messages: the session's earlier turns as user and
   * assistant messages at their lengths, then this turn's own user message; one user message when
   * there is no history or it does not fit.
   */
  private static ArrayNode messages(String prompt, int tokens, Session session) {
    ArrayNode messages = JsonNodeFactory.instance.arrayNode();
    int at = 0;
    if (session != null && !session.history.isEmpty()) {
      int[] bounds = new int[session.history.size() * 2];
      int i = 0;
      boolean fits = true;
      for (int[] earlier : session.history) {
        int promptEnd = earlier[0];
        int outputEnd = earlier[0] + earlier[1];
        if (promptEnd <= at || outputEnd >= tokens) {
          fits = false;
          break;
        }
        bounds[i++] = promptEnd;
        bounds[i++] = outputEnd;
        at = outputEnd;
      }
      at = 0;
      if (fits) {
        for (int b = 0; b < bounds.length; b++) {
          add(messages, b % 2 == 0 ? "user" : "assistant", prompt, at, bounds[b]);
          at = bounds[b];
        }
      }
    }
    add(messages, "user", prompt, at, tokens);
    return messages;
  }

  private static void add(ArrayNode messages, String role, String prompt, int from, int to) {
    ObjectNode m = messages.addObject();
    m.put("role", role);
    m.put(
        "content",
        prompt.substring(
            from * SyntheticPrompts.CHARS_PER_TOKEN, to * SyntheticPrompts.CHARS_PER_TOKEN));
  }
}

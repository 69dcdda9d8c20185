package io.tpotstream.producer.workload;

import java.util.ArrayDeque;
import java.util.List;

/**
 * Hands out what to send next, keeping every conversation's turns in order: turn k+1 of a
 * conversation becomes ready only when turn k {@link #finished}, and a ready turn goes out before a
 * new conversation starts. Conversation {@code s} goes to model {@code s mod models} with source
 * conversation {@code s / models}, so every model sees the same sequence of prompts. Thread-safe.
 */
public final class Sessions {
  /**
   * One request to send.
   *
   * @param session the conversation's number in this run (0-based)
   * @param turn this turn's index in it (0-based)
   * @param inputLength the {@code input_len} label's value, or null when the source has none
   */
  public record Request(
      String model,
      Turn input,
      long session,
      int turn,
      int turns,
      String inputLength,
      Conversation conversation) {

    public boolean lastTurn() {
      return turn == turns - 1;
    }
  }

  private final ConversationSource source;
  private final List<String> models;
  private final ArrayDeque<Request> ready = new ArrayDeque<>();
  private long nextSession;

  public Sessions(ConversationSource source, List<String> models) {
    this.source = source;
    this.models = List.copyOf(models);
  }

  /** The next request: a ready later turn if there is one, else the first turn of a new one. */
  public synchronized Request next() {
    Request r = ready.poll();
    if (r != null) {
      return r;
    }
    long s = nextSession++;
    String model = models.get((int) (s % models.size()));
    Conversation c = source.get(s / models.size());
    return request(model, c, s, 0);
  }

  /** Turn {@code r} is over (whatever its outcome): the conversation's next turn is ready. */
  public synchronized void finished(Request r) {
    if (!r.lastTurn()) {
      ready.add(request(r.model(), r.conversation(), r.session(), r.turn() + 1));
    }
  }

  /** Later turns ready to go. */
  public synchronized int ready() {
    return ready.size();
  }

  public ConversationSource source() {
    return source;
  }

  private Request request(String model, Conversation c, long session, int turn) {
    Turn t = c.turns().get(turn);
    return new Request(
        model,
        t,
        session,
        turn,
        c.turns().size(),
        source.labelsInputLength() ? InputLength.classOf(t.inputTokens()) : null,
        c);
  }
}

package io.tpotstream.producer.workload;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.function.Predicate;

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
  public Request next() {
    return next(model -> false);
  }

  /**
   * As {@link #next()}, for the models not {@code stopped}: a stopped model's ready turns are
   * dropped and its conversations skipped (the others keep theirs); null when every model is
   * stopped.
   */
  public synchronized Request next(Predicate<String> stopped) {
    for (Iterator<Request> it = ready.iterator(); it.hasNext(); ) {
      Request r = it.next();
      it.remove();
      if (!stopped.test(r.model())) {
        return r;
      }
    }
    for (int tried = 0; tried < models.size(); tried++) {
      long s = nextSession++;
      String model = models.get((int) (s % models.size()));
      if (!stopped.test(model)) {
        return request(model, source.get(s / models.size()), s, 0);
      }
    }
    return null;
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

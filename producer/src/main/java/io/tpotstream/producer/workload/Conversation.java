package io.tpotstream.producer.workload;

import java.util.List;

/** One conversation: a single turn, or several sent in order, each carrying the history so far. */
public record Conversation(List<Turn> turns) {
  public Conversation {
    if (turns.isEmpty()) {
      throw new IllegalArgumentException("a conversation needs at least one turn");
    }
    turns = List.copyOf(turns);
  }

  /** A one-turn conversation. */
  public static Conversation of(Turn turn) {
    return new Conversation(List.of(turn));
  }
}

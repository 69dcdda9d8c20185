package io.tpotstream.producer.config;

import com.fasterxml.jackson.databind.node.ArrayNode;
import io.tpotstream.producer.workload.ConversationSource;
import io.tpotstream.producer.workload.Dataset;
import io.tpotstream.producer.workload.SinglePrompt;

/**
 * The conversations requests send, as the first turn of each, cycled in order (see {@link
 * io.tpotstream.producer.workload.Sessions} for multi-turn conversations in order): one from {@code
 * prompt}, one per entry of a dataset, or synthetic prompts.
 */
public final class Prompts {
  private final ConversationSource source;

  private Prompts(ConversationSource source) {
    this.source = source;
  }

  /** The first turns of {@code source}'s conversations. */
  public static Prompts of(ConversationSource source) {
    return new Prompts(source);
  }

  /** One user message with {@code prompt}. */
  public static Prompts single(String prompt) {
    return new Prompts(SinglePrompt.of(prompt));
  }

  /** The messages of conversation number {@code index} (0-based), cycling; do not modify. */
  public ArrayNode messages(long index) {
    return source.get(index).turns().get(0).messages();
  }

  /** Conversations before the cycle repeats (1 for a single prompt or synthetic prompts). */
  public int size() {
    return source instanceof Dataset d ? d.size() : 1;
  }

  /** Where the prompts came from, for output. */
  public String source() {
    return source.describe();
  }

  /** Every turn of every conversation. */
  public ConversationSource conversations() {
    return source;
  }
}

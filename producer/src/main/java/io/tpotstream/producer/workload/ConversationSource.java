package io.tpotstream.producer.workload;

/**
 * Where the conversations a run sends come from: one prompt, a dataset file (cycled in order) or
 * synthetic prompts of chosen lengths. Conversation {@code n} is the same on every call and every
 * run with the same seed. Thread-safe.
 */
public interface ConversationSource {
  /** Conversation number {@code n} (0-based). */
  Conversation get(long n);

  /** Where the conversations come from, for output (never the prompt text). */
  String describe();

  /**
   * Whether requests get the {@code input_len} label (the prompt's length class): true for datasets
   * and synthetic lengths, false for a single prompt (its events stay as they were).
   */
  boolean labelsInputLength();
}

package io.tpotstream.producer.dialect;

import io.tpotstream.producer.sse.SseEvent;

/** Reads the events of one response in one API's dialect; keeps the usage it reported. */
public interface StreamReader {
  /** Interprets one event. */
  Chunk read(SseEvent event);

  /** Prompt tokens the API reported, or null. */
  Integer promptTokens();

  /** Completion tokens the API reported (the latest, cumulative value), or null. */
  Integer completionTokens();

  /** The finish or stop reason, or null when none came yet. */
  String finishReason();

  /** True when a finish reason makes a stream that ends here complete even without a terminator. */
  default boolean finished() {
    return finishReason() != null;
  }
}

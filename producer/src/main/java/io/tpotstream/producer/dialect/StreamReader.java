package io.tpotstream.producer.dialect;

import io.tpotstream.producer.sse.SseEvent;
import java.nio.charset.StandardCharsets;

/**
 * Reads the events of one response in one API's dialect; keeps the usage it reported. Reads the
 * data's bytes with Jackson's streaming parser (no tree, no copy of the text), and changes its
 * state only for a chunk that is whole, valid JSON.
 */
public interface StreamReader {
  /** Interprets one event: its type and its data, {@code length} bytes from {@code offset}. */
  Chunk read(String event, byte[] data, int offset, int length);

  /** Interprets one decoded event (tests, tools). */
  default Chunk read(SseEvent event) {
    byte[] data = event.data().getBytes(StandardCharsets.UTF_8);
    return read(event.event(), data, 0, data.length);
  }

  /** Prompt tokens the API reported, or null. */
  Integer promptTokens();

  /**
   * Of the prompt tokens, those the API reported as read from its prefix cache (OpenAI's {@code
   * prompt_tokens_details.cached_tokens}, Anthropic's {@code cache_read_input_tokens}), or null.
   */
  Integer cachedTokens();

  /**
   * What the server said of the request in a {@code metrics} object (vLLM's per-request metrics;
   * the latest one), or null when it said nothing.
   */
  default EngineReport engineReport() {
    return null;
  }

  /** Completion tokens the API reported (the latest, cumulative value), or null. */
  Integer completionTokens();

  /** The finish or stop reason, or null when none came yet. */
  String finishReason();

  /** True when a finish reason makes a stream that ends here complete even without a terminator. */
  default boolean finished() {
    return finishReason() != null;
  }
}

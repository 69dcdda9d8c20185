package io.tpotstream.simulator.api;

import io.tpotstream.simulator.engine.RequestMetrics;

/**
 * The bytes of one streamed response in one dialect. {@link #chunk} is called for every output
 * chunk in order, once each.
 */
interface StreamFormat {
  /** Sent as soon as the request arrives (OpenAI's role-only chunk; Anthropic's message_start). */
  String opening();

  /** Output chunk {@code seq}: one token event (plus any block change before it). */
  String chunk(int seq);

  /** One {@code data:} line of invalid JSON, framed as an event. */
  String malformedLine();

  /**
   * Sent right after the last chunk: the finish, the usage and the end marker; {@code engineView}
   * is the request as its engine saw it, for a dialect that reports it (vLLM's per-request
   * metrics).
   */
  String closing(RequestMetrics engineView);
}

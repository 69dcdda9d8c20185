package io.tpotstream.simulator.engine;

import java.util.Locale;

/** Why the engine finished a request, vLLM's {@code finished_reason} label (0.10 and 0.11). */
public enum FinishReason {
  /** The output ended before the request's cap. */
  STOP,
  /** The request's {@code max_tokens} stopped it. */
  LENGTH,
  /** The stream ended early: an injected cut, or the client went away. */
  ABORT;

  /** The label value: {@code stop}, {@code length}, {@code abort}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}

package io.tpotstream.simulator.api;

/** The two API shapes the simulator speaks. */
enum ApiShape {
  /** {@code POST .../chat/completions}: OpenAI chat completions (vLLM and gateways alike). */
  OPENAI,
  /** {@code POST .../messages}: Anthropic messages. */
  ANTHROPIC
}

package io.tpotstream.producer.dialect;

/**
 * What a server said of one request in its stream, as it said it: vLLM's per-request {@code
 * metrics} object ({@code --enable-per-request-metrics}), in ms. A value that was not a number is
 * {@link Double#NaN}; one that was absent or null is null. Not checked here: the {@link
 * io.tpotstream.producer.publish.Recorder} holds each to its bounds before it goes on the end
 * event.
 *
 * @param ttftMs {@code time_to_first_token_ms}
 * @param queueMs {@code queue_time_ms}
 * @param meanItlMs {@code mean_itl_ms}
 * @param generationMs {@code generation_time_ms}
 */
public record EngineReport(Double ttftMs, Double queueMs, Double meanItlMs, Double generationMs) {}

package io.tpotstream.common.engine;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * What an engine said of one request in its response (vLLM's per-request {@code metrics} object,
 * {@code --enable-per-request-metrics}), in µs, on the request's {@code end} event as {@code
 * engineTiming}; a value the engine did not give is null (omitted).
 *
 * @param queueUs time the request waited before the engine scheduled it
 * @param ttftUs the engine's time to first token
 * @param meanItlUs the engine's mean inter-token latency
 * @param generationUs from the first output token to the last, by the engine's clock
 */
@JsonPropertyOrder({"queueUs", "ttftUs", "meanItlUs", "generationUs"})
public record EngineTiming(Long queueUs, Long ttftUs, Long meanItlUs, Long generationUs) {}

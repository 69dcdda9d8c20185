package io.tpotstream.common.trace;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One request of a trace in tpot's format (docs/formats-and-replay.md, "Traces"): Mooncake's fields
 * first, so that any Mooncake reader reads it, then tpot's optional ones. Written by {@link
 * TraceBuilder}; absent values are left out.
 *
 * @param timestamp ms since the trace's start (its first request's)
 * @param inputLength prompt tokens, as the API reported them; null when it did not
 * @param outputLength output tokens: reported completion tokens, else the tokens in chunks
 * @param hashIds one id per leading block of {@code blockSize} tokens: the same id is the same text
 *     in every request of the trace (ids from 0, in order of first appearance)
 * @param blockSize tokens per block
 * @param model the model requested
 * @param labels the request's labels (none: left out)
 */
@JsonPropertyOrder({
  "timestamp",
  "input_length",
  "output_length",
  "hash_ids",
  "block_size",
  "model",
  "labels"
})
public record TraceLine(
    long timestamp,
    @JsonProperty("input_length") Integer inputLength,
    @JsonProperty("output_length") long outputLength,
    @JsonProperty("hash_ids") @JsonInclude(JsonInclude.Include.ALWAYS) List<Long> hashIds,
    @JsonProperty("block_size") int blockSize,
    String model,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) SortedMap<String, String> labels) {

  /** Mooncake's block, in tokens: every line tpot writes has it. */
  public static final int BLOCK_SIZE_TOKENS = 512;

  public TraceLine {
    hashIds = List.copyOf(hashIds);
    labels = labels == null ? null : new TreeMap<>(labels);
  }
}

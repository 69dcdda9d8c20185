package io.tpotstream.producer.http;

import java.util.SortedMap;

/**
 * One request to make.
 *
 * @param requestId unique id (the Kafka key and the {@code X-Request-Id} header)
 * @param model the model id
 * @param body the request body (JSON, its {@code max_tokens} the turn's or the config's), shared by
 *     the requests of one model and prompt
 * @param intendedNs open loop: the {@code System.nanoTime()} at which it was due; null when closed
 * @param warmup true for a warm-up request: its events are marked and left out of every statistic
 * @param labels the labels on every event of this request (the run's, its sweep stage, its prompt's
 *     {@code input_len} class), or null for the run's
 * @param askedTokens the output length a trace asked for ({@code output_length}, sent as {@code
 *     max_tokens}), so that a response that ends short of it is counted; null otherwise
 */
public record RequestSpec(
    String requestId,
    String model,
    byte[] body,
    Long intendedNs,
    boolean warmup,
    SortedMap<String, String> labels,
    Integer askedTokens) {

  /** A request with the run's labels. */
  public RequestSpec(String requestId, String model, byte[] body, Long intendedNs, boolean warmup) {
    this(requestId, model, body, intendedNs, warmup, null, null);
  }
}

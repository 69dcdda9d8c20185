package io.tpotstream.common.summary;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.tpotstream.common.stats.LatencyHistogram;
import java.math.BigDecimal;

/**
 * The server's prefix cache as the requests of a window reported it: {@code requests} the completed
 * requests whose usage carried cached tokens (OpenAI's {@code prompt_tokens_details.cached_tokens},
 * Anthropic's {@code cache_read_input_tokens}), {@code promptTokens} their prompt tokens, {@code
 * cachedTokens} how many of those the server read from its cache (each request's at most its prompt
 * tokens), and {@code hitRate} = cachedTokens / promptTokens, four decimals (null when those
 * requests had no prompt token). Left out of a summary when no request reported cached tokens: a
 * server that does not say is not a 0 % hit rate.
 */
@JsonPropertyOrder({"requests", "promptTokens", "cachedTokens", "hitRate"})
public record PromptCache(long requests, long promptTokens, long cachedTokens, BigDecimal hitRate) {

  /** The section for these sums, or null when no request reported cached tokens. */
  public static PromptCache of(long requests, long promptTokens, long cachedTokens) {
    if (requests == 0) {
      return null;
    }
    return new PromptCache(
        requests,
        promptTokens,
        cachedTokens,
        promptTokens == 0 ? null : LatencyHistogram.ratio(cachedTokens, promptTokens, 4));
  }
}

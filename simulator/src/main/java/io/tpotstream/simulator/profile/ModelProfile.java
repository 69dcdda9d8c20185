package io.tpotstream.simulator.profile;

import io.tpotstream.common.Records;
import java.util.List;

/**
 * How one model streams.
 *
 * @param ttft the wait from the request's arrival to the first output chunk
 * @param gap the wait between consecutive output chunks (per chunk, whatever its token count)
 * @param stall rare stalls that replace a gap
 * @param fixedStalls gaps fixed at given chunk indexes (they win over {@code gap} and {@code
 *     stall})
 * @param tokensPerChunk tokens carried by each output chunk (the last chunk of a kind may carry
 *     fewer)
 * @param outputTokens output length drawn per request and capped by the request's {@code
 *     max_tokens}; null means the output is exactly {@code max_tokens} (or {@code defaultMaxTokens}
 *     when the request has none)
 * @param defaultMaxTokens the output cap when the request sets no {@code max_tokens}
 * @param reasoningShare the share of the output sent first as reasoning ({@code reasoning_content},
 *     Anthropic {@code thinking}), 0 to 1
 * @param errors injected faults
 * @param catchUp false (the default): each chunk is due its gap after the previous chunk was
 *     actually sent, so a late chunk delays the rest; true: its gap after the previous chunk's due
 *     instant, so the chunks after a late one come in a burst until the schedule is met again (a
 *     server whose generation runs ahead of its writes)
 * @param prefixBlockTokens the prefix cache's block: a prompt is cached in blocks of this many
 *     tokens, and only whole blocks (16, vLLM's default)
 * @param prefillMsPerToken what each prompt token the prefix cache does not hold adds to the TTFT,
 *     in ms (0.01: 2,000 uncached tokens add 20 ms)
 * @param gatewayDelayMs a slow gateway between the engine and the socket, in ms (0): every chunk
 *     reaches the socket this much later than the engine produced it, so the client's TTFT and
 *     end-to-end time grow by it and its gaps do not; the engine's view ({@code /metrics}, the
 *     per-request metrics) leaves it out
 * @param perRequestMetrics vLLM's {@code --enable-per-request-metrics}: a {@code "metrics"} object
 *     (the engine's TTFT, generation time, queue time, mean ITL, tokens per second) in the last
 *     chunk of an OpenAI stream and in an OpenAI non-streamed body (false)
 */
public record ModelProfile(
    Distribution ttft,
    Distribution gap,
    Stall stall,
    List<FixedStall> fixedStalls,
    IntRange tokensPerChunk,
    IntRange outputTokens,
    int defaultMaxTokens,
    double reasoningShare,
    ErrorRates errors,
    boolean catchUp,
    int prefixBlockTokens,
    double prefillMsPerToken,
    double gatewayDelayMs,
    boolean perRequestMetrics) {

  public static final int DEFAULT_MAX_TOKENS = 256;

  /** vLLM's block size, in tokens. */
  public static final int DEFAULT_PREFIX_BLOCK_TOKENS = 16;

  /** The largest block: a block is hashed from its text, 4 characters a token. */
  public static final int MAX_PREFIX_BLOCK_TOKENS = 65_536;

  /** 10 µs a token (100,000 prompt tokens a second). */
  public static final double DEFAULT_PREFILL_MS_PER_TOKEN = 0.01;

  /** At most 1 s a token: a prompt of 100,000 tokens then waits a day. */
  public static final double MAX_PREFILL_MS_PER_TOKEN = 1000;

  /** The slowest gateway: a minute before each stream's first chunk reaches the socket. */
  public static final double MAX_GATEWAY_DELAY_MS = 60_000;

  public ModelProfile {
    if (ttft == null || gap == null) {
      throw new IllegalArgumentException("a profile needs a ttft and a gap distribution");
    }
    stall = stall == null ? Stall.NONE : stall;
    fixedStalls = fixedStalls == null ? List.of() : List.copyOf(fixedStalls);
    tokensPerChunk = tokensPerChunk == null ? IntRange.exactly(1) : tokensPerChunk;
    errors = errors == null ? ErrorRates.NONE : errors;
    if (defaultMaxTokens < 1) {
      throw new IllegalArgumentException("defaultMaxTokens must be >= 1, got " + defaultMaxTokens);
    }
    if (!(reasoningShare >= 0 && reasoningShare <= 1)) {
      throw new IllegalArgumentException("reasoningShare must be in [0, 1], got " + reasoningShare);
    }
    if (prefixBlockTokens < 1 || prefixBlockTokens > MAX_PREFIX_BLOCK_TOKENS) {
      throw new IllegalArgumentException(
          "prefixBlockTokens must be from 1 to "
              + MAX_PREFIX_BLOCK_TOKENS
              + ", got "
              + prefixBlockTokens);
    }
    if (!(prefillMsPerToken >= 0 && prefillMsPerToken <= MAX_PREFILL_MS_PER_TOKEN)) {
      throw new IllegalArgumentException(
          "prefillMsPerToken must be from 0 to "
              + (long) MAX_PREFILL_MS_PER_TOKEN
              + ", got "
              + prefillMsPerToken);
    }
    if (!(gatewayDelayMs >= 0 && gatewayDelayMs <= MAX_GATEWAY_DELAY_MS)) {
      throw new IllegalArgumentException(
          "gatewayDelayMs must be from 0 to "
              + (long) MAX_GATEWAY_DELAY_MS
              + ", got "
              + gatewayDelayMs);
    }
  }

  /** A profile with this TTFT and gap and every other setting at its default. */
  public static ModelProfile of(Distribution ttft, Distribution gap) {
    return new ModelProfile(
        ttft,
        gap,
        Stall.NONE,
        List.of(),
        null,
        null,
        DEFAULT_MAX_TOKENS,
        0,
        ErrorRates.NONE,
        false,
        DEFAULT_PREFIX_BLOCK_TOKENS,
        DEFAULT_PREFILL_MS_PER_TOKEN,
        0,
        false);
  }

  /**
   * The TTFT {@code uncachedTokens} prompt tokens add (those the prefix cache did not hold), in ns.
   */
  public long prefillNs(long uncachedTokens) {
    return Math.round(uncachedTokens * prefillMsPerToken * 1_000_000.0);
  }

  /** The gateway's delay before the socket, in ns. */
  public long gatewayDelayNs() {
    return Math.round(gatewayDelayMs * 1_000_000.0);
  }

  public ModelProfile withStall(Stall newStall) {
    return Records.with(this, "stall", newStall);
  }

  public ModelProfile withFixedStalls(List<FixedStall> newFixedStalls) {
    return Records.with(this, "fixedStalls", newFixedStalls);
  }

  public ModelProfile withTokensPerChunk(IntRange newTokensPerChunk) {
    return Records.with(this, "tokensPerChunk", newTokensPerChunk);
  }

  public ModelProfile withOutputTokens(IntRange newOutputTokens) {
    return Records.with(this, "outputTokens", newOutputTokens);
  }

  public ModelProfile withReasoningShare(double newReasoningShare) {
    return Records.with(this, "reasoningShare", newReasoningShare);
  }

  public ModelProfile withErrors(ErrorRates newErrors) {
    return Records.with(this, "errors", newErrors);
  }

  public ModelProfile withCatchUp(boolean newCatchUp) {
    return Records.with(this, "catchUp", newCatchUp);
  }

  public ModelProfile withPrefixBlockTokens(int newPrefixBlockTokens) {
    return Records.with(this, "prefixBlockTokens", newPrefixBlockTokens);
  }

  public ModelProfile withPrefillMsPerToken(double newPrefillMsPerToken) {
    return Records.with(this, "prefillMsPerToken", newPrefillMsPerToken);
  }

  public ModelProfile withGatewayDelayMs(double newGatewayDelayMs) {
    return Records.with(this, "gatewayDelayMs", newGatewayDelayMs);
  }

  public ModelProfile withPerRequestMetrics(boolean newPerRequestMetrics) {
    return Records.with(this, "perRequestMetrics", newPerRequestMetrics);
  }
}

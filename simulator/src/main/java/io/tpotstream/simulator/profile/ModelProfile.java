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
    boolean catchUp) {

  public static final int DEFAULT_MAX_TOKENS = 256;

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
        false);
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
}

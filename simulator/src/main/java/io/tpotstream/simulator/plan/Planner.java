package io.tpotstream.simulator.plan;

import io.tpotstream.simulator.profile.ErrorRates;
import io.tpotstream.simulator.profile.FixedStall;
import io.tpotstream.simulator.profile.ModelProfile;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Draws a {@link ResponsePlan} from a profile. The draws come from one {@link SplittableRandom}
 * seeded by {@link RequestSeeds#of}, in a fixed order (fault, length, chunk sizes, waits, texts,
 * cut, malformed line), so the same seed, model and request id always give the same plan.
 */
public final class Planner {
  /** The largest output a request may ask for, in tokens. */
  public static final int MAX_OUTPUT_TOKENS = 100_000;

  private Planner() {}

  /**
   * @param maxTokens the request's cap, or null for the profile's default
   * @param promptTokens reported back in usage
   */
  public static ResponsePlan plan(
      ModelProfile profile,
      long runSeed,
      String model,
      String requestId,
      Integer maxTokens,
      int promptTokens) {
    SplittableRandom random = new SplittableRandom(RequestSeeds.of(runSeed, model, requestId));
    ErrorRates errors = profile.errors();

    double faultDraw = random.nextDouble();
    Fault fault =
        faultDraw < errors.http429()
            ? Fault.HTTP_429
            : faultDraw < errors.http429() + errors.http500() ? Fault.HTTP_500 : Fault.NONE;

    int cap =
        Math.min(maxTokens != null ? maxTokens : profile.defaultMaxTokens(), MAX_OUTPUT_TOKENS);
    int output =
        profile.outputTokens() == null ? cap : Math.min(cap, profile.outputTokens().sample(random));
    int reasoningTokens = (int) Math.round(profile.reasoningShare() * output);

    List<Integer> sizes = new ArrayList<>();
    List<Boolean> kinds = new ArrayList<>();
    split(reasoningTokens, true, profile, random, sizes, kinds);
    split(output - reasoningTokens, false, profile, random, sizes, kinds);
    int chunks = sizes.size();

    long[] waitNs = new long[chunks];
    for (int seq = 0; seq < chunks; seq++) {
      waitNs[seq] = seq == 0 ? profile.ttft().sampleNs(random) : gapNs(profile, random);
    }
    if (chunks > 0) {
      // the gateway holds the first chunk, and so every later one, this much longer
      waitNs[0] += profile.gatewayDelayNs();
    }
    for (FixedStall stall : profile.fixedStalls()) {
      if (stall.beforeSeq() < chunks) {
        waitNs[stall.beforeSeq()] = Math.round(stall.gapMs() * 1_000_000.0);
      }
    }

    String[] texts = new String[chunks];
    boolean[] reasoning = new boolean[chunks];
    int[] tokens = new int[chunks];
    StringBuilder text = new StringBuilder();
    for (int seq = 0; seq < chunks; seq++) {
      text.setLength(0);
      for (int t = 0; t < sizes.get(seq); t++) {
        text.append(Vocabulary.TOKENS.get(random.nextInt(Vocabulary.TOKENS.size())));
      }
      texts[seq] = text.toString();
      reasoning[seq] = kinds.get(seq);
      tokens[seq] = sizes.get(seq);
    }

    int cutAfter = ResponsePlan.NONE;
    if (random.nextDouble() < errors.cut()) {
      cutAfter =
          errors.cutAfterChunks() != null
              ? Math.min(errors.cutAfterChunks(), Math.max(0, chunks - 1))
              : chunks < 2 ? 0 : 1 + random.nextInt(chunks - 1);
    }
    int malformedBefore = ResponsePlan.NONE;
    if (random.nextDouble() < errors.malformed()) {
      malformedBefore =
          errors.malformedBeforeSeq() != null
              ? Math.min(errors.malformedBeforeSeq(), chunks - 1)
              : random.nextInt(chunks);
    }
    return new ResponsePlan(
        fault,
        errors.retryAfterSeconds(),
        texts,
        reasoning,
        tokens,
        waitNs,
        promptTokens,
        output,
        output == cap,
        cutAfter,
        malformedBefore,
        profile.gatewayDelayNs());
  }

  private static void split(
      int tokens,
      boolean reasoning,
      ModelProfile profile,
      SplittableRandom random,
      List<Integer> sizes,
      List<Boolean> kinds) {
    int left = tokens;
    while (left > 0) {
      int size = Math.min(left, profile.tokensPerChunk().sample(random));
      sizes.add(size);
      kinds.add(reasoning);
      left -= size;
    }
  }

  private static long gapNs(ModelProfile profile, SplittableRandom random) {
    long gapNs = profile.gap().sampleNs(random);
    if (profile.stall().probability() > 0 && random.nextDouble() < profile.stall().probability()) {
      return profile.stall().duration().sampleNs(random);
    }
    return gapNs;
  }
}

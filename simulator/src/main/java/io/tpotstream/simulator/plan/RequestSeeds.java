package io.tpotstream.simulator.plan;

import java.nio.charset.StandardCharsets;

/** The seed of one request's random draws: a function of the run seed, the model and the id. */
public final class RequestSeeds {
  private static final long FNV_OFFSET = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;

  private RequestSeeds() {}

  /** Mixes {@code runSeed} with the UTF-8 bytes of {@code model} and {@code requestId}. */
  public static long of(long runSeed, String model, String requestId) {
    long hash = FNV_OFFSET;
    for (byte b : (model + '\u0000' + requestId).getBytes(StandardCharsets.UTF_8)) {
      hash = (hash ^ (b & 0xff)) * FNV_PRIME;
    }
    return mix(runSeed ^ mix(hash));
  }

  /** SplitMix64's finaliser: spreads every input bit over the output. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}

package io.tpotstream.simulator;

import io.tpotstream.simulator.profile.Distribution;
import io.tpotstream.simulator.profile.ErrorRates;
import io.tpotstream.simulator.profile.ModelProfile;

/**
 * The simulator the tests start, here and in the proxy's tests (through this module's test-jar):
 * 127.0.0.1 on a free port, a fixed seed, no warm-up, and fast models to add.
 */
public final class TestSimulators {
  private TestSimulators() {}

  /** The built-in profiles on 127.0.0.1 and a free port, seed {@code seed}, no warm-up. */
  public static SimulatorConfig config(long seed) {
    return SimulatorConfig.defaults().withWarmupChunks(0).withPort(0).withSeed(seed);
  }

  /**
   * The upstream of the proxy's tests: {@link #config(long)} that wants {@code apiKey}, with a
   * {@link #fast()} model named "quick" and a model "limited" that answers every request 429 with
   * {@code Retry-After: 7}.
   */
  public static SimulatorConfig proxyUpstream(long seed, String apiKey) {
    return config(seed)
        .withApiKey(apiKey)
        .withProfile("quick", fast())
        .withProfile("limited", rateLimited(7));
  }

  /** A model whose first token and every gap take 0.2 ms. */
  public static ModelProfile fast() {
    Distribution fast = new Distribution.Constant(0.2);
    return ModelProfile.of(fast, fast);
  }

  /** A {@link #fast()} model that answers every request 429 with {@code Retry-After: seconds}. */
  public static ModelProfile rateLimited(int retryAfterSeconds) {
    return fast().withErrors(new ErrorRates(1.0, retryAfterSeconds, 0, 0, null, 0, null));
  }
}

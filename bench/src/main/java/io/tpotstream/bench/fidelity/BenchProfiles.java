package io.tpotstream.bench.fidelity;

import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.simulator.profile.Distribution;
import io.tpotstream.simulator.profile.ModelProfile;
import io.tpotstream.simulator.profile.Profiles;
import java.util.Map;

/** Simulator profiles of the benchmarks, and the simulator settings they run with. */
public final class BenchProfiles {
  /** 50 tokens/s, constant 20 ms gaps. */
  public static final String CONSTANT = "bench-constant";

  /** 50 tokens/s on average: log-normal gaps of mean 20 ms (median 17.6 ms, sigma 0.5). */
  public static final String LOGNORMAL = "bench-lognormal";

  /** Constant 5 ms gaps and one 150 ms stall before chunk 100 (the stall check of B2). */
  public static final String STALL = "bench-stall";

  /** Two tokens 1 ms apart after 1 ms: many short requests. */
  public static final String SHORT = "bench-short";

  private BenchProfiles() {}

  /**
   * {@link #CONSTANT} and {@link #LOGNORMAL}, TTFT log-normal around 150 ms; and {@link #STALL}.
   */
  public static Map<String, ModelProfile> fiftyTokensPerSecond() {
    Distribution ttft = new Distribution.LogNormal(150, 0.5, 20, 1000);
    double sigma = 0.5;
    double median = 20 / Math.exp(sigma * sigma / 2);
    return Map.of(
        CONSTANT, ModelProfile.of(ttft, new Distribution.Constant(20)),
        LOGNORMAL, ModelProfile.of(ttft, new Distribution.LogNormal(median, sigma, 1, 200)),
        STALL,
            Profiles.parse(
                    "{\"models\": {\""
                        + STALL
                        + "\": {\"ttft\": 30, \"gap\": 5,"
                        + " \"fixedStalls\": [{\"beforeSeq\": 100, \"gapMs\": 150}]}}}")
                .get(STALL));
  }

  /** {@link #SHORT} only. */
  public static Map<String, ModelProfile> shortRequests() {
    return Map.of(
        SHORT, ModelProfile.of(new Distribution.Constant(1), new Distribution.Constant(1)));
  }

  /**
   * An in-process simulator on a free port with {@code profiles}, drawing from {@code seed},
   * keeping the ground truth of the last {@code requestsKept} requests (0: none).
   */
  public static SimulatorConfig simulator(
      long seed, Map<String, ModelProfile> profiles, int requestsKept) {
    return SimulatorConfig.defaults()
        .withPort(0)
        .withSeed(seed)
        .withProfiles(profiles)
        .withRequestsKept(requestsKept);
  }
}

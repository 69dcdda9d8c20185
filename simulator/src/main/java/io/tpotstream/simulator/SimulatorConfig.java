package io.tpotstream.simulator;

import io.tpotstream.common.Records;
import io.tpotstream.simulator.cache.PrefixCache;
import io.tpotstream.simulator.profile.Distribution;
import io.tpotstream.simulator.profile.ModelProfile;
import io.tpotstream.simulator.profile.Profiles;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * How to run a {@link Simulator}.
 *
 * @param host the address to listen on
 * @param port the port; 0 picks a free one
 * @param profiles model name to profile
 * @param seed the run seed, or null for a random one (reported by {@link
 *     io.tpotstream.simulator.truth.GroundTruth#seed()})
 * @param truthFile append one JSON line per sent chunk here, or null
 * @param apiKey the key clients must send, or null to accept any
 * @param eventLoops event-loop threads serving connections
 * @param requestsKept how many recent requests keep their per-chunk truth in memory
 * @param warmupChunks chunks streamed to itself at start, before its port opens, so that the JIT
 *     has compiled the paced per-chunk path before real requests (0: none)
 * @param realtimeLoops opt in to real-time priority for the event loops, which Linux allows only
 *     with CAP_SYS_NICE (see {@link io.tpotstream.simulator.pacing.LoopPriority}); where it is not
 *     allowed the loops stay at normal priority. False (the default): normal priority
 * @param prefixCacheBlocks the prefix cache's size in blocks (each of its model's {@code
 *     prefixBlockTokens}), shared by the models; 0: no cache, and no cached tokens reported
 */
public record SimulatorConfig(
    String host,
    int port,
    Map<String, ModelProfile> profiles,
    Long seed,
    Path truthFile,
    String apiKey,
    int eventLoops,
    int requestsKept,
    int warmupChunks,
    boolean realtimeLoops,
    int prefixCacheBlocks) {

  public static final int DEFAULT_PORT = 8000;
  public static final int DEFAULT_REQUESTS_KEPT = 10_000;
  public static final int DEFAULT_WARMUP_CHUNKS = 16_000;

  public SimulatorConfig {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be 0 to 65535, got " + port);
    }
    if (profiles == null || profiles.isEmpty()) {
      throw new IllegalArgumentException("at least one model profile is needed");
    }
    profiles = Map.copyOf(new TreeMap<>(profiles));
    if (warmupChunks < 0) {
      throw new IllegalArgumentException("warmupChunks must be >= 0, got " + warmupChunks);
    }
    if (eventLoops < 1) {
      throw new IllegalArgumentException("eventLoops must be >= 1, got " + eventLoops);
    }
    if (prefixCacheBlocks < 0 || prefixCacheBlocks > PrefixCache.MAX_BLOCKS) {
      throw new IllegalArgumentException(
          "the prefix cache holds 0 (none) to "
              + PrefixCache.MAX_BLOCKS
              + " blocks, got "
              + prefixCacheBlocks);
    }
  }

  /**
   * 127.0.0.1:8000, the built-in profiles, a random seed, no truth file, no key, one event loop per
   * core, the truth of the last 10,000 requests kept, a warm-up of 16,000 chunks, event loops at
   * normal priority, a prefix cache of 65,536 blocks.
   */
  public static SimulatorConfig defaults() {
    return new SimulatorConfig(
        "127.0.0.1",
        DEFAULT_PORT,
        Profiles.builtIns(),
        null,
        null,
        null,
        Runtime.getRuntime().availableProcessors(),
        DEFAULT_REQUESTS_KEPT,
        DEFAULT_WARMUP_CHUNKS,
        false,
        PrefixCache.DEFAULT_BLOCKS);
  }

  /**
   * A quiet simulator inside another process's JVM, for warming that process's own path: a free
   * loopback port, {@code models} each sending its first chunk after {@code firstMs} and then one
   * every {@code gapMs}, one event loop, no warm-up of its own, the truth of 16 requests kept.
   */
  public static SimulatorConfig inProcess(Iterable<String> models, double firstMs, double gapMs) {
    Map<String, ModelProfile> profiles = new LinkedHashMap<>();
    for (String model : models) {
      profiles.put(
          model,
          ModelProfile.of(new Distribution.Constant(firstMs), new Distribution.Constant(gapMs)));
    }
    return defaults()
        .withPort(0)
        .withProfiles(profiles)
        .withEventLoops(1)
        .withWarmupChunks(0)
        .withRequestsKept(16);
  }

  public SimulatorConfig withHost(String newHost) {
    return Records.with(this, "host", newHost);
  }

  public SimulatorConfig withPort(int newPort) {
    return Records.with(this, "port", newPort);
  }

  public SimulatorConfig withProfiles(Map<String, ModelProfile> newProfiles) {
    return Records.with(this, "profiles", newProfiles);
  }

  /** The built-ins plus {@code name}. */
  public SimulatorConfig withProfile(String name, ModelProfile profile) {
    Map<String, ModelProfile> more = new TreeMap<>(profiles);
    more.put(name, profile);
    return withProfiles(more);
  }

  public SimulatorConfig withSeed(Long newSeed) {
    return Records.with(this, "seed", newSeed);
  }

  public SimulatorConfig withTruthFile(Path newTruthFile) {
    return Records.with(this, "truthFile", newTruthFile);
  }

  public SimulatorConfig withApiKey(String newApiKey) {
    return Records.with(this, "apiKey", newApiKey);
  }

  public SimulatorConfig withEventLoops(int newEventLoops) {
    return Records.with(this, "eventLoops", newEventLoops);
  }

  public SimulatorConfig withRequestsKept(int newRequestsKept) {
    return Records.with(this, "requestsKept", newRequestsKept);
  }

  public SimulatorConfig withWarmupChunks(int newWarmupChunks) {
    return Records.with(this, "warmupChunks", newWarmupChunks);
  }

  public SimulatorConfig withRealtimeLoops(boolean newRealtimeLoops) {
    return Records.with(this, "realtimeLoops", newRealtimeLoops);
  }

  public SimulatorConfig withPrefixCacheBlocks(int newPrefixCacheBlocks) {
    return Records.with(this, "prefixCacheBlocks", newPrefixCacheBlocks);
  }

  /** Never shows the API key. */
  @Override
  public String toString() {
    return "SimulatorConfig[host="
        + host
        + ", port="
        + port
        + ", models="
        + profiles.keySet()
        + ", seed="
        + seed
        + ", truthFile="
        + truthFile
        + ", apiKey="
        + (apiKey == null ? "none" : "***")
        + ", eventLoops="
        + eventLoops
        + ", requestsKept="
        + requestsKept
        + ", warmupChunks="
        + warmupChunks
        + ", realtimeLoops="
        + realtimeLoops
        + ", prefixCacheBlocks="
        + prefixCacheBlocks
        + "]";
  }
}

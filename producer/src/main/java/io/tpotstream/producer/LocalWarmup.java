package io.tpotstream.producer;

import io.tpotstream.producer.config.ApiKind;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.simulator.profile.Distribution;
import io.tpotstream.simulator.profile.ModelProfile;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where the default warm-up's requests go ({@link io.tpotstream.producer.config.Warmup#LOCAL}): a
 * simulator inside this process serving the run's models in the run's API. The warm-up requests
 * take the run's whole path (its HTTP clients, SSE, the dialect, the publisher, Kafka; their events
 * marked {@code warmup: true}) while the JIT compiles it, and the endpoint sees none of them.
 */
final class LocalWarmup {
  private LocalWarmup() {}

  /** Starts the simulator for {@code config}'s models, on a free loopback port. */
  static Simulator start(ProducerConfig config) {
    Map<String, ModelProfile> profiles = new LinkedHashMap<>();
    for (String model : config.models()) {
      // the first chunk after 5 ms, then one every 10 ms: a realistic pace (100 tokens/s), gentle
      // on the cores the run will measure with
      profiles.put(
          model, ModelProfile.of(new Distribution.Constant(5), new Distribution.Constant(10)));
    }
    return Simulator.start(
        SimulatorConfig.defaults()
            .withPort(0)
            .withProfiles(profiles)
            .withEventLoops(1)
            .withWarmupChunks(0)
            .withRequestsKept(16));
  }

  /** The streaming URL of {@code simulator} in {@code config}'s API. */
  static URI streamUrl(Simulator simulator, ProducerConfig config) {
    String path = config.api() == ApiKind.ANTHROPIC ? "/messages" : "/chat/completions";
    return URI.create(simulator.openAiBaseUrl() + path);
  }
}

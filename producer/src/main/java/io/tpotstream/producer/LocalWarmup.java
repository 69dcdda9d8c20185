package io.tpotstream.producer;

import io.tpotstream.producer.config.ApiKind;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import java.net.URI;

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
    // the first chunk after 5 ms, then one every 10 ms: a realistic pace (100 tokens/s), gentle on
    // the cores the run will measure with
    return Simulator.start(SimulatorConfig.inProcess(config.models(), 5, 10));
  }

  /** The streaming URL of {@code simulator} in {@code config}'s API. */
  static URI streamUrl(Simulator simulator, ProducerConfig config) {
    String path = config.api() == ApiKind.ANTHROPIC ? "/messages" : "/chat/completions";
    return URI.create(simulator.openAiBaseUrl() + path);
  }
}

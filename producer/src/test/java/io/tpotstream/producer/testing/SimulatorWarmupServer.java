package io.tpotstream.producer.testing;

import io.tpotstream.producer.WarmupServer;
import io.tpotstream.producer.config.ApiKind;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import java.net.URI;

/** The tests' local warm-up server: the simulator, paced as app's SimulatorWarmup paces it. */
public final class SimulatorWarmupServer implements WarmupServer {
  private final Simulator simulator;
  private final URI streamUrl;

  private SimulatorWarmupServer(Simulator simulator, URI streamUrl) {
    this.simulator = simulator;
    this.streamUrl = streamUrl;
  }

  /** Starts the simulator for {@code config}'s models (5 ms to the first chunk, then 10 ms). */
  public static WarmupServer start(ProducerConfig config) {
    Simulator simulator = Simulator.start(SimulatorConfig.inProcess(config.models(), 5, 10));
    String path = config.api() == ApiKind.ANTHROPIC ? "/messages" : "/chat/completions";
    return new SimulatorWarmupServer(simulator, URI.create(simulator.openAiBaseUrl() + path));
  }

  @Override
  public URI streamUrl() {
    return streamUrl;
  }

  @Override
  public void close() {
    simulator.close();
  }
}

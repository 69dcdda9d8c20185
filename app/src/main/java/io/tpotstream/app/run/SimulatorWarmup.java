package io.tpotstream.app.run;

import io.tpotstream.producer.WarmupServer;
import io.tpotstream.producer.config.ApiKind;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import java.net.URI;

/**
 * The local warm-up's server that {@code produce}, {@code run} and {@code demo} give the producer:
 * the simulator inside the process, serving the run's models in the run's API.
 */
public final class SimulatorWarmup implements WarmupServer {
  private final Simulator simulator;
  private final URI streamUrl;

  private SimulatorWarmup(Simulator simulator, URI streamUrl) {
    this.simulator = simulator;
    this.streamUrl = streamUrl;
  }

  /** Starts the simulator for {@code config}'s models, on a free loopback port. */
  public static WarmupServer start(ProducerConfig config) {
    // the first chunk after 5 ms, then one every 10 ms: a realistic pace (100 tokens/s), gentle on
    // the cores the run will measure with
    Simulator simulator = Simulator.start(SimulatorConfig.inProcess(config.models(), 5, 10));
    String path = config.api() == ApiKind.ANTHROPIC ? "/messages" : "/chat/completions";
    return new SimulatorWarmup(simulator, URI.create(simulator.openAiBaseUrl() + path));
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

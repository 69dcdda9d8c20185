package io.tpotstream.app.cli;

import io.tpotstream.proxy.Primer;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import java.util.List;

/**
 * The simulator as the proxy's priming server: one event loop in this process, a 0.2 ms first token
 * and 0.2 ms gaps, so that a budget of seconds forwards tens of thousands of chunks.
 */
public final class PrimingSimulator implements Primer {
  private static final double FIRST_MS = 0.2;
  private static final double GAP_MS = 0.2;

  @Override
  public Server start(String model) {
    Simulator simulator =
        Simulator.start(SimulatorConfig.inProcess(List.of(model), FIRST_MS, GAP_MS));
    return new Server() {
      @Override
      public String baseUrl() {
        return simulator.baseUrl();
      }

      @Override
      public void close() {
        simulator.close();
      }
    };
  }
}

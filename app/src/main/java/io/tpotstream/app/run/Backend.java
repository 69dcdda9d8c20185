package io.tpotstream.app.run;

import io.tpotstream.aggregator.Aggregator;
import io.tpotstream.aggregator.AggregatorConfig;
import io.tpotstream.aggregator.stage.StageSettings;
import io.tpotstream.broker.LocalKafka;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The child JVM of {@code tpot run}: the embedded broker (unless Kafka is given), the aggregator
 * and, for the demo, the simulator. It prints {@code tpot-backend ready bootstrap=… simulator=…} on
 * stdout when all are up and shuts everything down when its stdin closes (its parent ended,
 * however).
 *
 * <p>Arguments: {@code BOOTSTRAP|embedded WINDOW_MS APPLICATION_ID SIMULATE(true|false) [GROUP_BY
 * [SLO GOODPUT]]} (the last two as {@code --slo} and {@code --goodput} read them).
 */
public final class Backend {
  static final String READY = "tpot-backend ready";

  private Backend() {}

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    Duration window = Duration.ofMillis(Long.parseLong(args[1]));
    String applicationId = args[2];
    boolean simulate = Boolean.parseBoolean(args[3]);
    List<String> groupBy =
        args.length > 4 && !args[4].isEmpty() ? Arrays.asList(args[4].split(",")) : List.of();

    List<AutoCloseable> started = new ArrayList<>();
    try {
      if ("embedded".equals(bootstrap)) {
        LocalKafka kafka = LocalKafka.create(0, null).start();
        started.add(kafka);
        bootstrap = kafka.bootstrapServers();
      }
      String simulatorUrl = "-";
      if (simulate) {
        Simulator simulator = Simulator.start(SimulatorConfig.defaults().withPort(0).withSeed(42L));
        started.add(simulator);
        simulatorUrl = simulator.baseUrl();
      }
      StageSettings stage =
          new StageSettings(
                  window,
                  StageSettings.DEFAULT_GRACE,
                  groupBy,
                  StageSettings.DEFAULT_REQUEST_TIMEOUT,
                  StageSettings.DEFAULT_PRODUCER_TIMEOUT)
              .withSlo(
                  SloSpec.parse(
                      args.length > 5 ? args[5] : null, args.length > 6 ? args[6] : null));
      Aggregator aggregator =
          Aggregator.start(
              AggregatorConfig.defaults(bootstrap)
                  .withApplicationId(applicationId)
                  .withStage(stage));
      started.add(aggregator);
      System.out.println(READY + " bootstrap=" + bootstrap + " simulator=" + simulatorUrl);
      System.out.flush();
      awaitEndOfInput(System.in);
    } finally {
      for (int i = started.size() - 1; i >= 0; i--) {
        try {
          started.get(i).close();
        } catch (Exception e) {
          System.err.println("tpot-backend: stopping " + started.get(i) + " failed: " + e);
        }
      }
    }
    System.exit(0);
  }

  private static void awaitEndOfInput(InputStream in) throws IOException {
    byte[] buffer = new byte[256];
    while (in.read(buffer) >= 0) {
      // nothing is sent on stdin: it only tells the child that its parent is alive
    }
  }
}

package io.tpotstream.app.run;

import io.tpotstream.aggregator.Aggregator;
import io.tpotstream.aggregator.AggregatorConfig;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.app.KafkaAccess;
import io.tpotstream.broker.LocalKafka;
import io.tpotstream.common.Topics;
import io.tpotstream.common.kafka.KafkaAccessException;
import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.kafka.KafkaFailures;
import io.tpotstream.common.kafka.KafkaNeeds;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The child JVM of {@code tpot run}: the embedded broker (unless Kafka is given), the aggregator
 * and, for the demo, the simulator. It prints {@code tpot-backend ready bootstrap=… simulator=…} on
 * stdout when the broker and the simulator are up; on the line {@code aggregate RUN_ID} on its
 * stdin it starts the aggregator for that run and prints {@code tpot-backend aggregating}. A
 * failure, then or later, is one line {@code tpot-backend failed MESSAGE} before it exits. It shuts
 * everything down when its stdin closes (its parent ended, however).
 *
 * <p>Arguments: {@code BOOTSTRAP|embedded KAFKA_CONFIG|- TIMEOUT_MS WINDOW_MS APPLICATION_ID
 * SUMMARIES_TOPIC SIMULATE(true|false) [GROUP_BY [SLO GOODPUT]]} (the last two as {@code --slo} and
 * {@code --goodput} read them, evaluated on every window).
 */
public final class Backend {
  static final String READY = "tpot-backend ready";
  static final String AGGREGATING = "tpot-backend aggregating";
  static final String FAILED = "tpot-backend failed ";
  static final String AGGREGATE = "aggregate ";

  private Backend() {}

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    Path kafkaConfig = "-".equals(args[1]) ? null : Path.of(args[1]);
    Duration timeout = Duration.ofMillis(Long.parseLong(args[2]));
    Duration window = Duration.ofMillis(Long.parseLong(args[3]));
    String applicationId = args[4];
    String summaries = args[5];
    boolean simulate = Boolean.parseBoolean(args[6]);
    List<String> groupBy =
        args.length > 7 && !args[7].isEmpty() ? Arrays.asList(args[7].split(",")) : List.of();
    SloSpec slo = SloSpec.parse(args.length > 8 ? args[8] : null, args.length > 9 ? args[9] : null);

    List<AutoCloseable> started = new ArrayList<>();
    BufferedReader stdin =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    int exit = 0;
    try {
      KafkaConnection kafka;
      if ("embedded".equals(bootstrap)) {
        LocalKafka broker = LocalKafka.create(0, null).start();
        started.add(broker);
        kafka = KafkaConnection.of(broker.bootstrapServers()).withTimeout(timeout);
      } else {
        kafka =
            KafkaConnection.resolve(bootstrap, kafkaConfig, Map.of(), timeout)
                .orElseThrow(() -> new IllegalArgumentException("no bootstrap servers"));
      }
      String simulatorUrl = "-";
      if (simulate) {
        Simulator simulator = Simulator.start(SimulatorConfig.defaults().withPort(0).withSeed(42L));
        started.add(simulator);
        simulatorUrl = simulator.baseUrl();
      }
      say(READY + " bootstrap=" + kafka.bootstrapServers() + " simulator=" + simulatorUrl);
      String line = stdin.readLine();
      String runId =
          line != null && line.startsWith(AGGREGATE)
              ? line.substring(AGGREGATE.length()).trim()
              : null;
      if (runId != null) {
        aggregate(kafka, runId, window, applicationId, summaries, groupBy, slo, started);
        while (stdin.readLine() != null) {
          // nothing more is sent: an open stdin only tells the child that its parent is alive
        }
      }
    } catch (RuntimeException e) {
      say(FAILED + String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
      exit = 1;
    } finally {
      for (int i = started.size() - 1; i >= 0; i--) {
        try {
          started.get(i).close();
        } catch (Exception e) {
          System.err.println("tpot-backend: stopping " + started.get(i) + " failed: " + e);
        }
      }
    }
    System.exit(exit);
  }

  /**
   * Starts the run's aggregator: from the end of the token events as they are now, this run's
   * events only, into the run's summaries topic.
   */
  private static void aggregate(
      KafkaConnection kafka,
      String runId,
      Duration window,
      String applicationId,
      String summaries,
      List<String> groupBy,
      SloSpec slo,
      List<AutoCloseable> started) {
    AggregatorConfig config =
        AggregatorConfig.defaults(kafka.bootstrapServers())
            .withTopics(Topics.TOKEN_EVENTS, summaries, Topics.DEAD_LETTER)
            .withApplicationId(applicationId)
            .withRunId(runId)
            .withKafkaProperties(kafka.settings())
            .withStage(
                new StageSettings(
                        window,
                        StageSettings.DEFAULT_GRACE,
                        groupBy,
                        StageSettings.DEFAULT_REQUEST_TIMEOUT,
                        StageSettings.DEFAULT_PRODUCER_TIMEOUT)
                    .withSlo(slo));
    RunOnCluster run = new RunOnCluster(applicationId, summaries, null);
    KafkaNeeds needs = run.needs(config.inputTopic()).and(KafkaAccess.aggregator(config));
    Aggregator aggregator;
    try {
      run.startAtEnd(kafka, Topics.TOKEN_EVENTS);
      aggregator = Aggregator.start(config);
    } catch (RuntimeException e) {
      throw KafkaFailures.recognize(e, kafka, needs, "start the aggregator")
          .<RuntimeException>map(k -> k)
          .orElse(e);
    }
    started.add(aggregator);
    aggregator
        .stopped()
        .whenComplete(
            (done, failure) -> {
              if (failure != null) {
                say(FAILED + message(failure, kafka, needs));
              }
            });
    say(AGGREGATING);
  }

  private static String message(Throwable failure, KafkaConnection kafka, KafkaNeeds needs) {
    Optional<KafkaAccessException> known =
        KafkaFailures.recognize(failure, kafka, needs, "aggregate this run's events");
    String text = known.map(Throwable::getMessage).orElse(String.valueOf(failure.getMessage()));
    return text.lines().findFirst().orElse("");
  }

  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}

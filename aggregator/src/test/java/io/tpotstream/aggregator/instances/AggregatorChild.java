package io.tpotstream.aggregator.instances;

import io.tpotstream.aggregator.Aggregator;
import io.tpotstream.aggregator.AggregatorConfig;
import io.tpotstream.aggregator.stage1.StageSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.StreamsConfig;

/**
 * One aggregator instance in a JVM of its own, as {@code tpot aggregate} runs it, for tests that
 * kill it with SIGKILL. Prints {@code running} once all its tasks run.
 *
 * <p>Arguments: bootstrap servers, input topic, output topic, application id, state directory,
 * window ms, group-by labels (comma-separated).
 */
public final class AggregatorChild {
  private AggregatorChild() {}

  public static void main(String[] args) throws Exception {
    AggregatorConfig config =
        AggregatorConfig.defaults(args[0])
            .withTopics(args[1], args[2], args[2] + "-dead")
            .withApplicationId(args[3])
            .withStage(
                StageSettings.defaults()
                    .withWindow(Duration.ofMillis(Long.parseLong(args[5])))
                    .withGroupBy(List.of(args[6].split(",")))
                    .withProducerTimeout(AggregatorInstancesTest.SETTINGS.producerTimeout()))
            .withKafkaProperties(
                Map.of(
                    StreamsConfig.STATE_DIR_CONFIG,
                    args[4],
                    // a killed instance's tasks move after 6 s rather than 45 s
                    StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG),
                    "6000",
                    StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG),
                    "1000"));
    Aggregator aggregator = Aggregator.start(config);
    boolean said = false;
    while (!aggregator.stopped().isDone()) {
      if (!said && aggregator.isRunning()) {
        System.out.println("running");
        System.out.flush();
        said = true;
      }
      Thread.sleep(50);
    }
    aggregator.stopped().join();
  }
}

package io.tpotstream.bench.memory;

import io.tpotstream.aggregator.Aggregator;
import io.tpotstream.aggregator.AggregatorConfig;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.aggregator.topology.AggregatorTopology;
import io.tpotstream.bench.jvm.ChildJvm;
import io.tpotstream.bench.jvm.ProcessMeter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The aggregator's topology in a JVM of its own, built as {@link Aggregator#start} builds it but
 * with its stores open to queries: {@code <bootstrap> <input> <output> <deadLetter> <applicationId>
 * <partitions> <sampleMs>}. Every {@code sampleMs} it reports the heap after a full GC and each
 * store's entries; SIGTERM closes it.
 */
public final class AggregatorProbe {
  static final List<String> STORES =
      List.of(AggregatorTopology.STAGE1_STORE, AggregatorTopology.STAGE2_STORE);

  /** One sample: the heap after a full GC and the entries of each store. */
  public record Sample(long heapBytes, Map<String, Long> entries) {}

  private AggregatorProbe() {}

  public static void main(String[] args) throws Exception {
    String input = args[1];
    AggregatorConfig config =
        AggregatorConfig.defaults(args[0])
            .withTopics(input, args[2], args[3])
            .withApplicationId(args[4])
            .withStage(StageSettings.defaults())
            .withInputPartitions(Integer.parseInt(args[5]));
    long sampleMs = Long.parseLong(args[6]);
    KafkaStreams streams =
        new KafkaStreams(
            Aggregator.buildTopology(config), AggregatorTopology.streamsProperties(config));
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> streams.close(Duration.ofSeconds(20)), "probe-stop"));
    streams.start();
    while (true) {
      Thread.sleep(sampleMs);
      if (streams.state() == KafkaStreams.State.RUNNING) {
        sample(streams);
      } else if (!streams.state().isRunningOrRebalancing()) {
        System.err.println("the aggregator stopped: " + streams.state());
        System.exit(1);
      }
    }
  }

  private static void sample(KafkaStreams streams) {
    long heap = ProcessMeter.heapAfterGc();
    Map<String, Long> entries = new LinkedHashMap<>();
    for (String store : STORES) {
      try {
        ReadOnlyKeyValueStore<Bytes, byte[]> kv =
            streams.store(
                StoreQueryParameters.fromNameAndType(
                    store, QueryableStoreTypes.<Bytes, byte[]>keyValueStore()));
        entries.put(store, kv.approximateNumEntries());
      } catch (InvalidStateStoreException e) {
        entries.put(store, -1L);
      }
    }
    ChildJvm.report("sample", new Sample(heap, entries));
  }
}

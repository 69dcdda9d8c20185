package io.tpotstream.bench.memory;

import io.tpotstream.aggregator.Aggregator;
import io.tpotstream.aggregator.AggregatorConfig;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.aggregator.topology.AggregatorTopology;
import io.tpotstream.bench.jvm.ChildJvm;
import io.tpotstream.bench.jvm.ProcessMeter;
import io.tpotstream.common.binary.BinaryReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The aggregator's topology in a JVM of its own, built as {@link Aggregator#start} builds it but
 * with its stores open to queries: {@code <bootstrap> <input> <output> <deadLetter> <applicationId>
 * <partitions> <sampleMs> [<groupBy>]} ({@code groupBy}: labels, comma-separated, as {@code
 * --group-by}). Every {@code sampleMs} it reports the heap after a full GC, each store's entries,
 * stage 1's entries by key tag and each input partition's clock (as last committed); SIGTERM closes
 * it.
 */
public final class AggregatorProbe {
  static final List<String> STORES =
      List.of(AggregatorTopology.STAGE1_STORE, AggregatorTopology.STAGE2_STORE);

  /**
   * One sample: the heap after a full GC, the entries of each store, stage 1's entries by the tag
   * that starts their key ({@code p} producers, {@code n} series names, {@code r} open requests,
   * {@code w} open windows' counts, {@code h} their health, ...) and the clock of each input
   * partition stage 1 holds (epoch ms, from its {@code K} entries).
   */
  public record Sample(
      long heapBytes,
      Map<String, Long> entries,
      Map<String, Long> stage1ByTag,
      List<Long> clocksMs) {
    /** The lowest partition clock, or {@link Long#MIN_VALUE} when not every partition has one. */
    public long lowestClockMs(int partitions) {
      if (clocksMs == null || clocksMs.size() < partitions) {
        return Long.MIN_VALUE;
      }
      return clocksMs.stream().mapToLong(Long::longValue).min().orElse(Long.MIN_VALUE);
    }

    /** Stage 1's entries of key tag {@code tag} (0 for none). */
    public long stage1(char tag) {
      return stage1ByTag == null ? 0 : stage1ByTag.getOrDefault(String.valueOf(tag), 0L);
    }
  }

  private AggregatorProbe() {}

  public static void main(String[] args) throws Exception {
    String input = args[1];
    List<String> groupBy =
        args.length > 7 && !args[7].isBlank() ? List.of(args[7].split(",")) : List.of();
    AggregatorConfig config =
        AggregatorConfig.defaults(args[0])
            .withTopics(input, args[2], args[3])
            .withApplicationId(args[4])
            .withStage(StageSettings.defaults().withGroupBy(groupBy))
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
    Map<String, Long> byTag = new TreeMap<>();
    List<Long> clocks = new ArrayList<>();
    for (String store : STORES) {
      try {
        ReadOnlyKeyValueStore<Bytes, byte[]> kv =
            streams.store(
                StoreQueryParameters.fromNameAndType(
                    store, QueryableStoreTypes.<Bytes, byte[]>keyValueStore()));
        entries.put(store, kv.approximateNumEntries());
        if (store.equals(AggregatorTopology.STAGE1_STORE)) {
          try (KeyValueIterator<Bytes, byte[]> all = kv.all()) {
            while (all.hasNext()) {
              KeyValue<Bytes, byte[]> entry = all.next();
              byte[] key = entry.key.get();
              byTag.merge(String.valueOf((char) key[0]), 1L, Long::sum);
              if (key.length == 1 && key[0] == 'K') {
                clocks.add(new BinaryReader(entry.value).readSigned());
              }
            }
          }
        }
      } catch (InvalidStateStoreException e) {
        entries.put(store, -1L);
      }
    }
    ChildJvm.report("sample", new Sample(heap, entries, byTag, clocks));
  }
}

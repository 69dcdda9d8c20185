package io.tpotstream.aggregator.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tpotstream.aggregator.partial.Metric;
import io.tpotstream.aggregator.partial.SeriesName;
import io.tpotstream.aggregator.partial.WindowCounts;
import io.tpotstream.common.binary.BinaryReader;
import io.tpotstream.common.binary.BinaryWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class StageMessageSerdeTest {
  private static StageMessage partial(int partition, String series, int samples) {
    WindowCounts counts = new WindowCounts();
    for (int i = 0; i < samples; i++) {
      counts.latency(Metric.TPOT, 1_000 + 37L * i, 1);
    }
    return StageMessage.partial(partition, 10_000, new SeriesName(series, series, null), counts);
  }

  /** A received partial keeps its counts' bytes, and writes them again as they came. */
  @Test
  void aReceivedPartialHoldsTheCountsAsWritten() {
    StageMessage sent = partial(2, "m", 3_000);
    byte[] bytes = new StageMessageSerde.Writer().serialize("t", sent);
    StageMessage received = new StageMessageSerde.Reader().deserialize("t", bytes);
    assertEquals(2, received.partition());
    assertEquals("m", received.series().series());
    BinaryWriter expected = new BinaryWriter();
    sent.counts().writeTo(expected);
    WindowCounts read = new WindowCounts();
    byte[] encoded = received.encoded();
    read.addFrom(
        new BinaryReader(encoded, received.countsAt(), encoded.length - received.countsAt()));
    BinaryWriter got = new BinaryWriter();
    read.writeTo(got);
    assertArrayEquals(expected.toByteArray(), got.toByteArray());
    assertArrayEquals(bytes, new StageMessageSerde.Writer().serialize("t", received));
  }

  /**
   * One serializer serves every stream thread, each with its own buffer: partials written at once
   * by two threads come out whole.
   */
  @Test
  void oneWriterServesSeveralThreadsAtOnce() throws Exception {
    StageMessageSerde.Writer shared = new StageMessageSerde.Writer();
    List<StageMessage> messages = List.of(partial(0, "a", 4_000), partial(1, "b", 1_500));
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (StageMessage m : messages) {
        byte[] expected = new StageMessageSerde.Writer().serialize("t", m);
        results.add(
            threads.submit(
                () -> {
                  int whole = 0;
                  for (int i = 0; i < 2_000; i++) {
                    whole += Arrays.equals(expected, shared.serialize("t", m)) ? 1 : 0;
                  }
                  return whole;
                }));
      }
      for (Future<Integer> r : results) {
        assertEquals(2_000, r.get());
      }
    } finally {
      threads.shutdownNow();
    }
  }
}

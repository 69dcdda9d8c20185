package io.tpotstream.aggregator.partial;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.tpotstream.common.binary.BinaryReader;
import io.tpotstream.common.binary.BinaryWriter;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Stage 1 counts each series' next window in the counts it cleared. */
class WindowCountsTest {

  private static byte[] bytes(WindowCounts counts) {
    BinaryWriter out = new BinaryWriter();
    counts.writeTo(out);
    return out.toByteArray();
  }

  private static Consumer<WindowCounts> window(long seed, boolean withTtft) {
    return c -> {
      Random r = new Random(seed);
      for (int i = 0; i < 5_000; i++) {
        c.latency(Metric.TPOT, (long) Math.exp(9 + r.nextGaussian()), 1 + r.nextInt(2));
      }
      if (withTtft) {
        c.latency(Metric.TTFT, 150_000 + r.nextInt(1_000), 1);
      }
      c.started(3 + r.nextInt(5));
      c.completedFull(2);
      c.failed("http_" + (500 + r.nextInt(3)), 1);
      c.lateSamples(r.nextInt(3));
      c.goodRequests(1);
    };
  }

  @Test
  void clearedCountsWriteExactlyWhatNewOnesWould() {
    WindowCounts reused = new WindowCounts();
    for (int w = 0; w < 4; w++) {
      Consumer<WindowCounts> fill = window(w, w % 2 == 0); // TTFT in every other window only
      WindowCounts fresh = new WindowCounts();
      fill.accept(fresh);
      reused.clear();
      fill.accept(reused);
      assertArrayEquals(bytes(fresh), bytes(reused), "window " + w);
    }
    reused.clear();
    assertArrayEquals(bytes(new WindowCounts()), bytes(reused), "cleared: as new");
  }

  /** Stage 2 adds a partial read from its bytes: the same as building it, then adding it. */
  @Test
  void addingTheBinaryFormIsAddingTheCounts() {
    WindowCounts added = new WindowCounts();
    WindowCounts read = new WindowCounts();
    for (int w = 0; w < 4; w++) {
      WindowCounts partial = new WindowCounts();
      window(w, w % 2 == 1).accept(partial);
      added.add(partial);
      read.addFrom(new BinaryReader(bytes(partial)));
      assertArrayEquals(bytes(added), bytes(read), "after partial " + w);
    }
  }
}

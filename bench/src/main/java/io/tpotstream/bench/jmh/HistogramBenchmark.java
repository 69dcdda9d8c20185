package io.tpotstream.bench.jmh;

import io.tpotstream.common.stats.LatencyHistogram;
import java.util.SplittableRandom;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;

/** Recording one TPOT sample into the statistics core (HdrHistogram, 1 µs to 1 h, 3 digits). */
public class HistogramBenchmark extends JmhDefaults {
  private static final int SAMPLES = 4096;

  private final long[] gapsMicros = new long[SAMPLES];
  private LatencyHistogram histogram;
  private int next;

  @Setup
  public void setUp() {
    // log-normal gaps around 20 ms (sigma 0.5), as a 50 tokens/s stream has them
    SplittableRandom random = new SplittableRandom(1);
    for (int i = 0; i < SAMPLES; i++) {
      double z =
          Math.sqrt(-2 * Math.log(1 - random.nextDouble()))
              * Math.cos(2 * Math.PI * random.nextDouble());
      gapsMicros[i] = Math.round(17_650 * Math.exp(0.5 * z));
    }
    histogram = new LatencyHistogram();
  }

  @Benchmark
  public boolean recordMicros() {
    next = (next + 1) & (SAMPLES - 1);
    return histogram.recordMicros(gapsMicros[next]);
  }

  @Benchmark
  public long recordThenP99Of4096() {
    LatencyHistogram h = new LatencyHistogram();
    for (long gap : gapsMicros) {
      h.recordMicros(gap);
    }
    return h.percentileMicros(99);
  }
}

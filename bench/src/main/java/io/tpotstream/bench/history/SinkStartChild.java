package io.tpotstream.bench.history;

import io.tpotstream.bench.jvm.ChildJvm;
import io.tpotstream.bench.jvm.ProcessMeter;
import io.tpotstream.sink.Sink;
import io.tpotstream.sink.SinkConfig;
import io.tpotstream.sink.SinkListener;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A sink in a JVM of its own over existing files: {@code <bootstrap> <input> <metricsTopic>
 * <groupId> <csv> <summaries>}. It reports, in ms, the JVM's start to {@code Sink.start}, {@code
 * Sink.start} itself, then to the first and to the last of {@code summaries} committed, and the
 * heap after a full GC once they are; then it stops.
 */
public final class SinkStartChild {
  /** What one start measured. */
  public record Started(
      long jvmToStartMs,
      long startMs,
      long firstMs,
      long allMs,
      long cpuMs,
      long bytesRead,
      long heapBytes,
      long written) {}

  private SinkStartChild() {}

  public static void main(String[] args) throws Exception {
    long expected = Long.parseLong(args[5]);
    long[] firstNs = {0};
    CountDownLatch all = new CountDownLatch(1);
    SinkListener listener =
        new SinkListener() {
          @Override
          public void committed(int summaries, long totalWritten) {
            if (firstNs[0] == 0) {
              firstNs[0] = System.nanoTime();
            }
            if (totalWritten >= expected) {
              all.countDown();
            }
          }
        };
    SinkConfig config =
        SinkConfig.builder(args[0])
            .inputTopic(args[1])
            .metricsTopic(args[2])
            .groupId(args[3])
            .csv(Path.of(args[4]))
            .prometheus("127.0.0.1", 0)
            .listener(listener)
            .build();
    long jvmToStartMs =
        System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime();
    long startNs = System.nanoTime();
    try (Sink sink = Sink.start(config)) {
      long startedNs = System.nanoTime();
      if (!all.await(2, TimeUnit.MINUTES)) {
        throw new IllegalStateException(
            "only " + sink.summariesWritten() + " of " + expected + " summaries in 2 minutes");
      }
      long allNs = System.nanoTime();
      long cpuMs = ms(ProcessMeter.processCpuNs());
      long bytesRead = ProcessMeter.bytesRead();
      ChildJvm.report(
          "started",
          new Started(
              jvmToStartMs,
              ms(startedNs - startNs),
              ms(firstNs[0] - startNs),
              ms(allNs - startNs),
              cpuMs,
              bytesRead,
              ProcessMeter.heapAfterGc(),
              sink.summariesWritten()));
    }
  }

  private static long ms(long nanos) {
    return Duration.ofNanos(nanos).toMillis();
  }
}

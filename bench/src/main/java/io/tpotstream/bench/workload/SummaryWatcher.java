package io.tpotstream.bench.workload;

import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * Reads an aggregator's output topic (read_committed) until the summaries of a given last window
 * are all out, and notes when the first and the last arrived.
 */
public final class SummaryWatcher implements AutoCloseable {
  /** When the summaries came out (System.nanoTime()) and how many there were. */
  public record Seen(long firstNs, long lastWindowDoneNs, long summaries, long inLastWindow) {}

  private final KafkaConsumer<byte[], byte[]> consumer;

  /** Assigns the (existing) output topic from its start. */
  public SummaryWatcher(String bootstrap, String outputTopic) {
    consumer = BenchTopics.consumer(bootstrap);
    BenchTopics.assignFromStart(consumer, outputTopic);
  }

  /**
   * Polls until {@code expectedInLast} summaries of the window ending at {@code lastWindowEndMs}
   * have been read; {@code whilePolling} runs between polls (e.g. to sample state).
   *
   * @throws IllegalStateException when that takes longer than {@code timeout}
   */
  public Seen awaitLastWindow(
      long lastWindowEndMs, int expectedInLast, Duration timeout, Runnable whilePolling) {
    long deadline = System.nanoTime() + timeout.toNanos();
    long first = -1;
    long summaries = 0;
    long inLast = 0;
    while (inLast < expectedInLast) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the last window's summaries did not come out within "
                + timeout.toSeconds()
                + " s ("
                + inLast
                + " of "
                + expectedInLast
                + " after "
                + summaries
                + " summaries)");
      }
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(20))) {
        if (first < 0) {
          first = System.nanoTime();
        }
        summaries++;
        WindowSummary s = WindowSummaryCodec.decode(r.value());
        if (s.windowEndMs() == lastWindowEndMs) {
          inLast++;
        }
      }
      whilePolling.run();
    }
    return new Seen(first, System.nanoTime(), summaries, inLast);
  }

  /** The summaries read in one poll of at most {@code timeout}, decoded. */
  public List<WindowSummary> poll(Duration timeout) {
    List<WindowSummary> read = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(timeout)) {
      read.add(WindowSummaryCodec.decode(r.value()));
    }
    return read;
  }

  @Override
  public void close() {
    consumer.close();
  }
}

package io.tpotstream.aggregator.topology;

import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * When a closed window's output is committed. Kafka Streams commits every second ({@code
 * commit.interval.ms}, see {@link AggregatorTopology#streamsProperties}): each commit is a
 * transaction, and fewer of them is what lets a backlog (a replay, a restart behind, a new
 * application id) be read at speed. A window closed by a record written in the last {@value
 * #LIVE_MS} ms, live traffic, asks for a commit at once, so its summary does not wait for the
 * interval (BENCHMARKS.md, B1 and B3). "Recent" is by this machine's clock: producers whose clocks
 * run more than that behind it get their summaries a commit interval or two later.
 */
final class LiveCommit {
  /** How recent the record that closes a window must be for its output to be committed at once. */
  static final long LIVE_MS = 30_000;

  private LiveCommit() {}

  /** Asks for a commit when {@code causeTimestampMs}, the closing record's time, is recent. */
  static void ifLive(ProcessorContext<?, ?> context, long causeTimestampMs) {
    if (causeTimestampMs >= context.currentSystemTimeMs() - LIVE_MS) {
      context.commit();
    }
  }
}

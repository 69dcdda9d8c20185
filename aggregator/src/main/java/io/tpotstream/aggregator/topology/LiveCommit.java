package io.tpotstream.aggregator.topology;

import java.time.Duration;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * When a processor's closed windows are committed. Kafka Streams commits every second ({@code
 * commit.interval.ms}, see {@link AggregatorTopology#streamsProperties}): each commit is a
 * transaction, and fewer of them is what lets a backlog (a replay, a restart behind, a new
 * application id) be read at speed. Two cases ask for a commit at once, so that a summary does not
 * wait for the interval twice (stage 1's partials, then stage 2's output):
 *
 * <ul>
 *   <li>a window closed by a record written in the last {@value #LIVE_MS} ms, live traffic
 *       (BENCHMARKS.md, B3). "Recent" is by this machine's clock;
 *   <li>a window closed by any record, once the stream thread running the task has read no record
 *       between two checks ({@link #IDLE_CHECK} apart, each after the thread's poll): the end of a
 *       backlog, or producers whose clocks run behind this machine's. While a backlog is being read
 *       a stage-1 thread is not idle, and commits stay once a second (BENCHMARKS.md, B1). Idle is
 *       by thread, not by task: a thread busy with one task's records leaves its other tasks
 *       without any for a while, and a commit commits every task of the thread anyway.
 * </ul>
 *
 * The check is scheduled only while a closed window waits for its commit: a wall-clock punctuation
 * marks its task as needing a commit whenever it fires, and one that always ran would make an idle
 * aggregator commit a transaction every second. One per processor: {@link #record()} on every
 * record, {@link #windowClosed} when it closes a window, {@link #committed()} from inside the
 * commit, {@link #close()} with the processor.
 */
final class LiveCommit {
  /**
   * How recent the record that closes a window must be for its output to be committed at once. Live
   * traffic closes its windows with records a second old at most (stage 2 sees them one commit
   * later); a record older than this was written while the aggregator was elsewhere (a topic loaded
   * moments ago, a restart behind): a backlog, read at speed with a commit a second.
   */
  static final long LIVE_MS = 5_000;

  /** How often an idle thread with closed windows not yet committed is looked for (wall clock). */
  static final Duration IDLE_CHECK = Duration.ofMillis(50);

  /** Records read by the processors of each stream thread (punctuations run on that thread). */
  private static final ThreadLocal<long[]> READ_BY_THREAD =
      ThreadLocal.withInitial(() -> new long[1]);

  private final ProcessorContext<?, ?> context;

  /** The running thread's count, taken again at every check in case the task moved threads. */
  private long[] read = READ_BY_THREAD.get();

  private long readAtCheck;

  /** The idle check while a closed window waits for its commit (it runs only then), else null. */
  private Cancellable idleCheck;

  /** The commit rule of the processor that owns {@code context}. */
  LiveCommit(ProcessorContext<?, ?> context) {
    this.context = context;
  }

  /** The processor read a record. */
  void record() {
    read[0]++;
  }

  /**
   * The processor closed a window on a record of {@code causeTimestampMs}: a commit at once when
   * that record is recent, else at the interval or when the thread goes idle.
   */
  void windowClosed(long causeTimestampMs) {
    if (isLive(causeTimestampMs)) {
      context.commit();
    }
    if (idleCheck == null) {
      readAtCheck = read[0];
      idleCheck = context.schedule(IDLE_CHECK, PunctuationType.WALL_CLOCK_TIME, now -> check());
    }
  }

  /**
   * True when a record of {@code causeTimestampMs} is live traffic (written in the last {@value
   * #LIVE_MS} ms), false when it is a backlog being read.
   */
  boolean isLive(long causeTimestampMs) {
    return causeTimestampMs >= context.currentSystemTimeMs() - LIVE_MS;
  }

  /** Inside a commit: what was closed is in it. */
  void committed() {
    close();
  }

  /** No more checks (the processor closes, or nothing waits for a commit). */
  void close() {
    if (idleCheck != null) {
      idleCheck.cancel();
      idleCheck = null;
    }
  }

  private void check() {
    read = READ_BY_THREAD.get();
    long now = read[0];
    if (now == readAtCheck) {
      context.commit();
    }
    readAtCheck = now;
  }
}

package io.tpotstream.aggregator.offline;

import io.tpotstream.aggregator.stage1.PartitionStage;
import io.tpotstream.aggregator.stage1.Stage1Output;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.aggregator.stage2.MergeOutput;
import io.tpotstream.aggregator.stage2.WindowMerger;
import io.tpotstream.archive.ArchivedRecord;
import io.tpotstream.common.event.DecodedEvent;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventDecoder;
import io.tpotstream.common.event.TokenEventFormatException;
import io.tpotstream.common.progress.Progress;
import io.tpotstream.common.summary.WindowSummary;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The aggregator's statistics without Kafka: the same {@link PartitionStage} and {@link
 * WindowMerger} run over events read in the replay order ({@link ArchivedRecord#REPLAY_ORDER}) as
 * one partition, and the end of the input counts as every producer's final heartbeat. For healthy
 * producers the summaries equal the aggregator's, byte for byte. An event the aggregator would send
 * to the dead letters (see {@link TokenEventDecoder}) is reported and skipped here.
 */
public final class OfflineStats {
  private OfflineStats() {}

  /**
   * Summaries of {@code events} (in log order), in the order the aggregator emits them: by window,
   * then series. An event the logic cannot process is reported to {@code problems} and skipped.
   */
  public static List<WindowSummary> compute(
      List<TokenEvent> events, StageSettings settings, Consumer<String> problems) {
    Session session = new Session(settings, problems);
    events.forEach(session::add);
    return session.finish();
  }

  /**
   * Same, for the records of an archive in replay order ({@link
   * io.tpotstream.archive.ArchiveReader}), on as many threads as there are cores; a record that is
   * not a token event is reported to {@code problems} with its line ("line N: why") and skipped.
   * {@code progress}, when not null, counts the records.
   */
  public static List<WindowSummary> computeArchived(
      List<ArchivedRecord> records,
      StageSettings settings,
      Consumer<String> problems,
      Progress progress) {
    return computeArchived(
        records, settings, problems, progress, Runtime.getRuntime().availableProcessors());
  }

  /**
   * Same, on {@code workers} threads. With more than one, the records are dealt out as a replay to
   * {@code workers} partitions deals them (each request's events to one worker by its key, each
   * distinct heartbeat to every worker) and each worker runs its own {@link PartitionStage}, their
   * partials merged by one {@link WindowMerger}: what the aggregator does with that many input
   * partitions, which gives the same summaries for any count (docs/design.md, "Time, windows and
   * completeness"). Each worker decodes its own records, so decoding runs in parallel too.
   */
  public static List<WindowSummary> computeArchived(
      List<ArchivedRecord> records,
      StageSettings settings,
      Consumer<String> problems,
      Progress progress,
      int workers) {
    return new Parallel(settings, Math.max(1, workers), problems).run(records, progress);
  }

  /**
   * As {@link #computeArchived(List, StageSettings, Consumer, Progress)}, for records given a
   * stretch at a time in the replay order (a streamed export): each stretch is dealt out as it
   * comes, and only the stretches still queued for the workers are held. Close it when done.
   */
  public static Streaming streaming(
      StageSettings settings, Consumer<String> problems, Progress progress) {
    Parallel parallel =
        new Parallel(settings, Runtime.getRuntime().availableProcessors(), problems);
    parallel.start();
    return new Streaming(parallel, progress);
  }

  /** Offline stats fed a stretch at a time (see {@link #streaming}). */
  public static final class Streaming implements AutoCloseable {
    private final Parallel parallel;
    private final Progress progress;

    private Streaming(Parallel parallel, Progress progress) {
      this.parallel = parallel;
      this.progress = progress;
    }

    /** Deals the next stretch of records (in the replay order) out to the workers. */
    public void accept(List<ArchivedRecord> stretch) throws InterruptedException {
      parallel.deal(stretch, progress);
    }

    /** Ends the input and returns the summaries, as {@link #computeArchived} does. */
    public List<WindowSummary> finish() throws InterruptedException {
      return parallel.finish(progress);
    }

    /** Stops the workers (at once when {@link #finish} was not called). */
    @Override
    public void close() {
      parallel.stop();
    }
  }

  /** Workers, each a partition of a replay: its own stage, one shared merger. */
  private static final class Parallel {
    private static final int BATCH = 4096;

    /**
     * Batches waiting for each worker: what a streamed file holds in flight beyond the reader's
     * blocks; few, so that they die young (BENCHMARKS.md, B5, "Stats while reading").
     */
    private static final int QUEUED = 4;

    private static final ArchivedRecord[] END = new ArchivedRecord[0];

    private final List<WindowSummary> summaries = new ArrayList<>();
    private final WindowMerger merger;
    private final MergeOutput merged = (summary, json) -> summaries.add(summary);
    private final Worker[] workers;
    private final Consumer<String> problems;
    private final Set<ArchivedRecord.Heartbeat> heartbeats = new HashSet<>();
    private long dealt;

    /** {@code problems} is called from every worker, one at a time (under its own lock). */
    Parallel(StageSettings settings, int count, Consumer<String> problems) {
      this.problems =
          problem -> {
            synchronized (problems) {
              problems.accept(problem);
            }
          };
      merger =
          new WindowMerger(
              count, settings.windowMs(), settings.clientLagThresholdUs(), settings.slo());
      merger.open("the file");
      workers = new Worker[count];
      for (int i = 0; i < count; i++) {
        workers[i] = new Worker(i, settings);
      }
    }

    List<WindowSummary> run(List<ArchivedRecord> input, Progress progress) {
      start();
      try {
        deal(input, progress);
        return finish(progress);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      } finally {
        stop();
      }
    }

    void start() {
      for (Worker w : workers) {
        w.thread.start();
      }
    }

    /**
     * Deals records out: each request's events to one worker by its key, each distinct heartbeat to
     * every worker.
     */
    void deal(List<ArchivedRecord> input, Progress progress) throws InterruptedException {
      int n = input.size();
      for (int i = 0; i < n; i++) {
        ArchivedRecord r = input.get(i);
        ArchivedRecord.Heartbeat heartbeat = r.heartbeat();
        if (heartbeat != null) {
          if (heartbeats.add(heartbeat)) {
            for (Worker w : workers) {
              w.add(r);
            }
          }
        } else {
          workers[Math.floorMod(r.keyHash(), workers.length)].add(r);
        }
        if (progress != null && (++dealt & 4095) == 0) {
          progress.set(dealt);
        }
      }
    }

    /** Ends the input: waits for the workers, closes the last windows, returns the summaries. */
    List<WindowSummary> finish(Progress progress) throws InterruptedException {
      for (Worker w : workers) {
        w.finish();
      }
      long lastTsMs = Long.MIN_VALUE;
      for (Worker w : workers) {
        w.thread.join();
        if (w.failure != null) {
          throw new IllegalStateException("offline stats failed: " + w.failure, w.failure);
        }
        lastTsMs = Math.max(lastTsMs, w.lastTsMs);
      }
      if (lastTsMs != Long.MIN_VALUE) {
        for (Worker w : workers) {
          w.stage.endOfInput(lastTsMs, w.output);
        }
      }
      if (progress != null) {
        progress.set(dealt);
      }
      return summaries;
    }

    /** Stops the workers and waits for them: none reports a problem after this returns. */
    void stop() {
      for (Worker w : workers) {
        w.thread.interrupt();
      }
      try {
        for (Worker w : workers) {
          w.thread.join();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    private final class Worker {
      final int partition;
      final PartitionStage stage;
      final Stage1Output output;
      final BlockingQueue<ArchivedRecord[]> queue = new ArrayBlockingQueue<>(QUEUED);
      final TokenEventDecoder decoder = new TokenEventDecoder();
      final Thread thread;
      ArchivedRecord[] batch = new ArchivedRecord[BATCH];
      int length;
      long lastTsMs = Long.MIN_VALUE;
      volatile Throwable failure;

      Worker(int partition, StageSettings settings) {
        this.partition = partition;
        stage = new PartitionStage(settings, false, false);
        output = merger.input(partition, merged, merger);
        thread = new Thread(this::work, "stats-" + partition);
        thread.setDaemon(true);
      }

      void add(ArchivedRecord record) throws InterruptedException {
        batch[length++] = record;
        if (length == BATCH) {
          hand(batch);
          batch = new ArchivedRecord[BATCH];
          length = 0;
        }
      }

      void finish() throws InterruptedException {
        hand(Arrays.copyOf(batch, length));
        hand(END);
      }

      private void hand(ArchivedRecord[] records) throws InterruptedException {
        while (!queue.offer(records, 100, TimeUnit.MILLISECONDS)) {
          if (failure != null) {
            throw new IllegalStateException("offline stats failed: " + failure, failure);
          }
        }
      }

      private void work() {
        try {
          for (ArchivedRecord[] records = queue.take(); records != END; records = queue.take()) {
            for (ArchivedRecord record : records) {
              apply(record);
            }
          }
        } catch (InterruptedException e) {
          // stopped
        } catch (Throwable e) {
          failure = e;
        }
      }

      private void apply(ArchivedRecord record) {
        DecodedEvent event;
        try {
          event = decoder.decode(record.keyBytes(), record.valueBytes());
        } catch (TokenEventFormatException e) {
          problems.accept("line " + record.line() + ": " + e.getMessage());
          return;
        }
        String distrust = stage.distrust(event, record.timestamp());
        if (distrust != null) {
          problems.accept("line " + record.line() + ": not trusted: " + distrust);
          return;
        }
        try {
          stage.onEvent(event, record.timestamp(), output);
        } catch (RuntimeException e) {
          problems.accept("line " + record.line() + ": could not process this event: " + e);
        }
        lastTsMs = Math.max(lastTsMs, event.ts());
      }
    }
  }

  /** One pass of the stages over events given one at a time, in log order. */
  public static final class Session {
    private final List<WindowSummary> summaries = new ArrayList<>();
    private final Consumer<String> problems;
    private long events;
    private final PartitionStage stage;
    private final WindowMerger merger;
    private final Stage1Output output;
    private final TokenEventDecoder decoder = new TokenEventDecoder();
    private long lastTsMs = Long.MIN_VALUE;

    /** {@code problems} hears about each event the logic could not process. */
    public Session(StageSettings settings, Consumer<String> problems) {
      this.problems = problems;
      stage = new PartitionStage(settings, false, false);
      merger =
          new WindowMerger(1, settings.windowMs(), settings.clientLagThresholdUs(), settings.slo());
      merger.open("the file");
      MergeOutput merged = (summary, json) -> summaries.add(summary);
      output = merger.input(0, merged, null);
    }

    /** Applies the next event. */
    public void add(TokenEvent event) {
      add(event, events + 1);
    }

    /** Applies the next event, read from line {@code line} of a file. */
    public void add(TokenEvent value, long line) {
      events++;
      DecodedEvent event;
      try {
        event = decoder.decode(value);
      } catch (TokenEventFormatException e) {
        problems.accept("line " + line + ": " + e.getMessage());
        return;
      }
      try {
        stage.onEvent(event, event.ts(), output);
      } catch (RuntimeException e) {
        problems.accept("line " + line + ": could not process this event: " + e);
      }
      lastTsMs = Math.max(lastTsMs, event.ts());
    }

    /**
     * Ends the input (every producer's final heartbeat) and returns the summaries, in the order the
     * aggregator emits them.
     */
    public List<WindowSummary> finish() {
      if (lastTsMs != Long.MIN_VALUE) {
        stage.endOfInput(lastTsMs, output);
      }
      return summaries;
    }
  }
}

package io.tpotstream.producer.result;

import io.tpotstream.common.Records;
import io.tpotstream.common.request.RequestRecord;
import io.tpotstream.common.request.RequestTrace;
import io.tpotstream.common.request.RequestsFile;
import io.tpotstream.common.slo.GoodputLimits;
import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.producer.http.CallOutcome;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * {@code --requests-out}: one {@link RequestRecord} line per finished request, written live by a
 * thread of its own (never an event loop). Each record is built with {@link RequestTrace} from the
 * very values the request's events carry (start ts, elapsed times from the request start, chunk
 * tokens, usage, error class), so that {@code tpot stats --requests-out} on an export of the run
 * gives the same lines (but for a replayed trace's {@code askedTokens} and {@code endedShort},
 * which the events do not carry).
 */
public final class RequestsOut implements AutoCloseable {
  private record Finished(
      String requestId,
      String runId,
      String model,
      Map<String, String> labels,
      long startTsMs,
      CallOutcome outcome) {}

  private static final Finished END = new Finished(null, null, null, null, 0, null);

  private final RequestsFile file;
  private final GoodputLimits goodput;
  private final LinkedBlockingQueue<Finished> queue = new LinkedBlockingQueue<>();
  private final Thread writer;
  private volatile IOException failure;

  private RequestsOut(RequestsFile file, GoodputLimits goodput) {
    this.file = file;
    this.goodput = goodput;
    this.writer = new Thread(this::drain, "tpot-requests-out");
    writer.setDaemon(true);
    writer.start();
  }

  /**
   * Creates {@code path} (truncating it) and starts the writer.
   *
   * @throws IllegalArgumentException when the file cannot be written
   */
  public static RequestsOut open(Path path, GoodputLimits goodput) {
    return new RequestsOut(RequestsFile.create(path), goodput);
  }

  /** Hands over one finished request (any thread; never blocks). */
  public void finished(
      String requestId,
      String runId,
      String model,
      Map<String, String> labels,
      long startTsMs,
      CallOutcome outcome) {
    queue.add(new Finished(requestId, runId, model, labels, startTsMs, outcome));
  }

  /** The record of one request, as the events it published give it. */
  static RequestRecord record(
      String requestId,
      String runId,
      String model,
      Map<String, String> labels,
      long startTsMs,
      CallOutcome o,
      GoodputLimits goodput,
      LatencyHistogram scratch) {
    RequestTrace trace = new RequestTrace(requestId);
    trace.start(startTsMs, runId, model, labels, o.scheduleLagNs());
    long[] at = o.arrivalsNs();
    int[] k = o.tokensPerChunk();
    for (int i = 0; i < o.chunks(); i++) {
      trace.token(i, at[i] - o.startNs(), k[i]);
    }
    long elapsedNs = o.endNs() - o.startNs();
    trace.promptUsage(o.promptTokens(), o.cachedTokens());
    trace.engineTiming(o.engineTiming()); // as the end event carries it
    RequestRecord record =
        o.completed()
            ? trace.end(elapsedNs, o.completionTokens(), goodput, scratch)
            : trace.error(
                elapsedNs,
                o.failure().errorClass().wire(),
                o.failure().message(),
                goodput,
                scratch);
    if (o.askedTokens() == null) {
      return record;
    }
    // what only the producer knows: the output length a trace asked for
    record = Records.with(record, "askedTokens", o.askedTokens());
    return o.completed() ? Records.with(record, "endedShort", o.endedShort()) : record;
  }

  private void drain() {
    LatencyHistogram scratch = new LatencyHistogram();
    try {
      while (true) {
        Finished f = queue.take();
        if (f == END) {
          break;
        }
        if (failure != null) {
          continue;
        }
        try {
          file.write(
              record(
                  f.requestId(),
                  f.runId(),
                  f.model(),
                  f.labels(),
                  f.startTsMs(),
                  f.outcome(),
                  goodput,
                  scratch));
        } catch (IOException e) {
          failure = e;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Records written so far. */
  public long written() {
    return file.written();
  }

  public Path path() {
    return file.path();
  }

  /**
   * Writes what is queued and closes the file.
   *
   * @throws IOException when a record could not be written (the message names the file)
   */
  @Override
  public void close() throws IOException {
    queue.add(END);
    try {
      writer.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    file.close();
    if (failure != null) {
      throw new IOException(
          "could not write every request record to " + file.path() + ": " + failure.getMessage(),
          failure);
    }
  }
}

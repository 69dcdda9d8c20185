package io.tpotstream.simulator.api;

import io.tpotstream.simulator.pacing.LoopMailbox;
import io.tpotstream.simulator.pacing.PacedTask;
import io.tpotstream.simulator.pacing.Pacer;
import io.tpotstream.simulator.plan.ResponsePlan;
import io.tpotstream.simulator.truth.Outcome;
import io.tpotstream.simulator.truth.RequestRecorder;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

/**
 * One streamed response: writes the opening at once, then each output chunk when the {@link Pacer}
 * releases it on this connection's event loop. Chunk 0 is due at arrival + TTFT; chunk n at the
 * instant chunk n-1 was due + its planned gap, so the schedule is fixed when the request arrives
 * (as a server's generation goes on whatever its writes do): a late write does not shift what
 * follows, and the actual gap is the planned gap plus this chunk's pacing error minus the previous
 * one's. Every write's {@code nanoTime} right after it returns is recorded as the truth.
 */
final class StreamSession extends PacedTask {
  private final HttpServerRequest request;
  private final HttpServerResponse response;
  private final ResponsePlan plan;
  private final StreamFormat format;
  private final RequestRecorder recorder;
  private final Pacer pacer;
  private int next;
  private boolean done;

  StreamSession(
      LoopMailbox mailbox,
      Pacer pacer,
      HttpServerRequest request,
      ResponsePlan plan,
      StreamFormat format,
      RequestRecorder recorder) {
    super(mailbox);
    this.pacer = pacer;
    this.request = request;
    this.response = request.response();
    this.plan = plan;
    this.format = format;
    this.recorder = recorder;
  }

  /** Sends the headers and the opening, and schedules chunk 0; on the event loop. */
  void start(long arrivalNs) {
    response
        .setChunked(true)
        .putHeader("Content-Type", "text/event-stream; charset=utf-8")
        .putHeader("Cache-Control", "no-cache")
        .putHeader("X-Request-Id", recorder.requestId())
        .closeHandler(ignored -> clientClosed())
        .exceptionHandler(ignored -> clientClosed());
    response.write(format.opening());
    pacer.schedule(this, arrivalNs + plan.waitNs(0));
  }

  private void clientClosed() {
    if (!done) {
      done = true;
      recorder.end(Outcome.CLIENT_CLOSED);
    }
  }

  @Override
  protected void runDue(long dueNs) {
    if (done) {
      return;
    }
    if (next == plan.cutAfterChunks()) {
      done = true;
      recorder.end(Outcome.CUT);
      request.connection().close();
      return;
    }
    Buffer out = Buffer.buffer(512);
    if (next == plan.malformedBeforeSeq()) {
      out.appendString(format.malformedLine());
      recorder.malformedLine();
    }
    out.appendString(format.chunk(next));
    boolean last = next == plan.chunks() - 1;
    if (last) {
      done = true;
      response.end(out.appendString(format.closing()));
    } else {
      response.write(out);
    }
    long sentNs = System.nanoTime();
    recorder.chunk(next, dueNs, sentNs, plan.tokens(next));
    if (last) {
      recorder.end(Outcome.COMPLETED);
      return;
    }
    next++;
    pacer.schedule(this, dueNs + plan.waitNs(next));
  }
}

package io.tpotstream.simulator.api;

import io.tpotstream.simulator.engine.RequestMetrics;
import io.tpotstream.simulator.pacing.LoopTimer;
import io.tpotstream.simulator.plan.ResponsePlan;
import io.tpotstream.simulator.truth.Outcome;
import io.tpotstream.simulator.truth.RequestRecorder;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

/**
 * One streamed response, on its connection's event loop: writes the opening at once, then each
 * output chunk when it is due. Chunk 0 is due at the request's arrival + its TTFT; chunk n at the
 * instant chunk n-1 was actually sent + its planned gap, so every gap a client sees is the planned
 * gap plus this one chunk's pacing error, and a late chunk never makes the next ones catch up in a
 * burst. A profile with {@code catchUp} asks for the other rule (due at chunk n-1's due instant +
 * the gap, a server whose generation runs ahead of its writes). Each chunk's bytes are built right
 * after the previous write, so at its due instant there is only the write, which the loop's timer
 * starts a learnt lead early so that it is done at the due instant; {@code nanoTime} right after
 * the write returns is recorded as the truth. The last chunk's bytes, built before it is sent,
 * carry the engine's view of the request ({@link RequestMetrics}) with that chunk at its due
 * instant.
 */
final class StreamSession {
  private final HttpServerRequest request;
  private final HttpServerResponse response;
  private final ResponsePlan plan;
  private final StreamFormat format;
  private final RequestRecorder recorder;
  private final LoopTimer timer;
  private final boolean catchUp;
  private final LoopTimer.Task sendDue =
      new LoopTimer.Task() {
        @Override
        protected void runDue() {
          sendDue();
        }
      };
  private int next;
  private boolean done;
  private Buffer pending;
  private long intendedNs;
  private long dueNs;
  private long arrivalNs;
  private long firstSentNs;

  StreamSession(
      LoopTimer timer,
      HttpServerRequest request,
      ResponsePlan plan,
      StreamFormat format,
      RequestRecorder recorder,
      boolean catchUp) {
    this.timer = timer;
    this.request = request;
    this.response = request.response();
    this.plan = plan;
    this.format = format;
    this.recorder = recorder;
    this.catchUp = catchUp;
  }

  /** Sends the headers and the opening, and arms chunk 0; on the event loop. */
  void start(long arrivalNs) {
    this.arrivalNs = arrivalNs;
    response
        .setChunked(true)
        .putHeader("Content-Type", "text/event-stream; charset=utf-8")
        .putHeader("Cache-Control", "no-cache")
        .putHeader("X-Request-Id", recorder.requestId())
        .closeHandler(ignored -> clientClosed())
        .exceptionHandler(ignored -> clientClosed());
    response.write(format.opening());
    arm(arrivalNs);
  }

  private void clientClosed() {
    if (!done) {
      done = true;
      recorder.end(Outcome.CLIENT_CLOSED);
    }
  }

  /** Chunk {@code next} is due its planned wait after {@code fromNs}; its bytes are made now. */
  private void arm(long fromNs) {
    intendedNs = plan.waitNs(next);
    dueNs = fromNs + intendedNs;
    if (next != plan.cutAfterChunks()) {
      String chunk = format.chunk(next);
      if (next == plan.malformedBeforeSeq()) {
        chunk = format.malformedLine() + chunk;
      }
      if (next == plan.chunks() - 1) {
        chunk = chunk + format.closing(engineView());
      }
      // one exact-size copy of the text: a chunk allocates little, so the collector pauses rarely
      pending = Buffer.buffer(chunk);
    }
    timer.at(dueNs, sendDue);
  }

  /**
   * The request as its engine saw it, once its last chunk is armed: its first chunk left the engine
   * the gateway's delay before it was sent (before it is due, when it is also the last), and the
   * last one is taken at its due instant, its bytes being built before it is sent.
   */
  private RequestMetrics engineView() {
    long firstNs = next == 0 ? dueNs : firstSentNs;
    return new RequestMetrics(
        firstNs - plan.gatewayDelayNs() - arrivalNs,
        dueNs - firstNs,
        0,
        plan.chunks(),
        plan.outputTokens());
  }

  private void sendDue() {
    if (done) {
      return;
    }
    if (next == plan.cutAfterChunks()) {
      done = true;
      recorder.end(Outcome.CUT);
      request.connection().close();
      return;
    }
    boolean last = next == plan.chunks() - 1;
    if (last) {
      done = true;
      response.end(pending);
    } else {
      response.write(pending);
    }
    long sentNs = System.nanoTime();
    pending = null;
    if (next == 0) {
      firstSentNs = sentNs;
    }
    if (next == plan.malformedBeforeSeq()) {
      recorder.malformedLine();
    }
    timer.learn(sentNs - dueNs);
    recorder.chunk(next, intendedNs, dueNs, sentNs, plan.tokens(next));
    if (last) {
      recorder.end(Outcome.COMPLETED);
      return;
    }
    next++;
    arm(catchUp ? dueNs : sentNs);
  }
}

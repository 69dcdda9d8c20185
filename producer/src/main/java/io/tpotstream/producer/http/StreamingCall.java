package io.tpotstream.producer.http;

import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.dialect.Dialect;
import io.tpotstream.producer.publish.Handoff;
import io.tpotstream.producer.publish.LoopLagMeter;
import io.tpotstream.producer.publish.MeasuredRequest;
import io.tpotstream.producer.sse.SseFramer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * One streaming request on the event loop that owns it, doing only what must happen there. The
 * request start is taken just before the HTTP client is asked to send (before pool wait, connect
 * and TLS); each SSE event is found in the bytes as they arrive ({@link SseFramer}) and handed,
 * with the time and number of the socket read that completed its last data line ({@link
 * ArrivalStamp}), to the publisher thread ({@link Handoff}), which reads its JSON, decides what it
 * means and publishes. Here live the HTTP exchange, the timers, and the errors only the loop can
 * see (connect, status, reset, end of stream). Nothing here parses JSON or blocks.
 */
public final class StreamingCall {
  private static final int ERROR_BODY_LIMIT = 64 * 1024;
  private static final int PREVIEW_BYTES = 200;
  private static final long AFTER_DONE_GRACE_MS = 1000;

  private final Vertx vertx;
  private final HttpClient client;
  private final ProducerConfig config;
  private final Dialect dialect;
  private final Handoff handoff;
  private final RequestSpec spec;
  private final URI url;
  private final Promise<Void> promise = Promise.promise();
  private final Context context;
  private final LoopLagMeter lag;
  private final SseFramer framer = new SseFramer(this::onEvent);
  private final Buffer preview = Buffer.buffer();
  private MeasuredRequest record;
  private IntFunction<RequestFailure> failure;
  private ArrivalStamp stamp;
  private long readNumber;
  private long lastEventNs;
  private boolean closed;
  private boolean completed;
  private boolean responseEnded;
  private boolean graceArmed;
  private boolean answered;
  private String contentType = "";
  private HttpClientRequest request;
  private long totalTimer = -1;
  private long firstTokenTimer = -1;
  private long idleTimer = -1;

  /** Creates the call on the current event-loop context, which then runs all of it. */
  public StreamingCall(CallContext run, HttpClient client, RequestSpec spec) {
    this.lag = LoopLagMeter.current();
    this.vertx = run.vertx();
    this.client = client;
    this.config = run.config();
    this.dialect = run.dialect();
    this.handoff = run.handoff();
    this.spec = spec;
    this.url = spec.warmup() && run.warmupUrl() != null ? run.warmupUrl() : config.streamUrl();
    this.context = vertx.getOrCreateContext();
  }

  /**
   * Starts the request; call on the event-loop context the call was created on. Completes when the
   * HTTP exchange is over (the measurement's verdict is the publisher thread's). Never fails:
   * errors are outcomes.
   */
  public Future<Void> start() {
    Buffer body = Buffer.buffer(spec.body());
    RequestOptions options = requestOptions();
    record =
        new MeasuredRequest(
            spec.requestId(),
            spec.model(),
            spec.warmup(),
            spec.intendedNs(),
            dialect.newReader(),
            this::abort,
            spec.labels());
    record.askedTokens(spec.askedTokens());
    record.started(System.nanoTime());
    handoff.start(record);
    long totalMs = config.timeouts().total().toMillis();
    totalTimer =
        vertx.setTimer(
            totalMs,
            id ->
                fail(
                    chunks ->
                        new RequestFailure(
                            ErrorClass.TIMEOUT_TOTAL,
                            null,
                            "the request took longer than "
                                + totalMs
                                + " ms in total ("
                                + chunks
                                + " token chunks so far): raise timeout or lower max_tokens")));
    firstTokenTimer =
        vertx.setTimer(
            config.timeouts().firstToken().toMillis(),
            id -> {
              firstTokenTimer = -1;
              if (!closed) {
                handoff.firstTokenDue(record, System.nanoTime());
              }
            });
    client
        .request(options)
        .onComplete(ar -> onRequest(ar.succeeded() ? ar.result() : null, ar.cause(), body));
    return promise.future();
  }

  /** Cancels the request (a stop): it ends as class {@code cancelled}. Safe from any thread. */
  public void cancel() {
    context.runOnContext(
        v ->
            fail(
                chunks ->
                    new RequestFailure(
                        ErrorClass.CANCELLED,
                        null,
                        "stopped (Ctrl-C, SIGTERM or a failure) after "
                            + chunks
                            + " token chunks, before the stream ended")));
  }

  private RequestOptions requestOptions() {
    RequestOptions options =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setAbsoluteURI(url.toString())
            .setConnectTimeout(config.timeouts().connect().toMillis())
            .putHeader("Content-Type", "application/json")
            .putHeader("Accept", "text/event-stream")
            .putHeader("Accept-Encoding", "identity")
            .putHeader("User-Agent", HttpClients.USER_AGENT)
            .putHeader("X-Request-Id", spec.requestId());
    dialect.authHeaders(config, options::putHeader);
    for (Map.Entry<String, String> h : config.headers().entrySet()) {
      options.putHeader(h.getKey(), h.getValue());
    }
    return options;
  }

  private void onRequest(HttpClientRequest req, Throwable cause, Buffer body) {
    if (req == null) {
      fail(
          chunks ->
              Failures.ofConnect(
                  cause,
                  url,
                  config.proxy(),
                  config.timeouts().connect(),
                  config.tls(),
                  config.secrets()));
      return;
    }
    request = req;
    if (closed) {
      req.reset();
      finishCall();
      return;
    }
    stamp = ArrivalStamp.of(req.connection());
    req.send(body)
        .onComplete(
            ar -> {
              if (ar.failed()) {
                Throwable error = ar.cause();
                fail(
                    chunks ->
                        Failures.ofStream(
                            error,
                            url,
                            config.proxy(),
                            chunks,
                            false,
                            config.tls(),
                            config.secrets()));
              } else {
                onResponse(ar.result());
              }
            });
  }

  private void onResponse(HttpClientResponse response) {
    if (closed) {
      response.handler(b -> {});
      response.endHandler(v -> finishCall());
      response.exceptionHandler(t -> finishCall());
      return;
    }
    answered = true;
    int status = response.statusCode();
    contentType = lower(response.getHeader("Content-Type"));
    if (status >= 300 && status < 400) {
      String location = response.getHeader("Location");
      readBody(
          response,
          text ->
              fail(chunks -> Failures.ofRedirect(status, "POST", url, location, config.secrets())));
      return;
    }
    if (status < 200 || status > 299) {
      String retryAfter = response.getHeader("Retry-After");
      readBody(
          response,
          text ->
              fail(
                  chunks ->
                      Failures.ofStatus(
                          status,
                          "POST",
                          url,
                          text,
                          retryAfter,
                          config.apiKey(),
                          config.secrets())));
      return;
    }
    if (contentType.startsWith("application/json") || contentType.startsWith("text/html")) {
      readBody(response, text -> fail(chunks -> notAStream(status, text)));
      return;
    }
    response.handler(this::onBytes);
    response.endHandler(v -> onEnd());
    response.exceptionHandler(this::onStreamError);
  }

  private void onBytes(Buffer buffer) {
    long readNs;
    if (stamp != null) {
      readNs = stamp.lastReadNs;
      readNumber = stamp.reads;
    } else {
      readNs = System.nanoTime();
      readNumber++;
    }
    if (closed) {
      return;
    }
    if (preview.length() < PREVIEW_BYTES) {
      preview.appendBuffer(buffer, 0, Math.min(buffer.length(), PREVIEW_BYTES - preview.length()));
    }
    framer.feed(buffer, readNs, readNumber);
    if (framer.overflowed()) {
      // a server's event past the cap ends this response, before it can hold more memory
      fail(
          chunks ->
              new RequestFailure(
                  ErrorClass.PROTOCOL,
                  null,
                  redact(
                      "the event stream from POST "
                          + url
                          + " carried "
                          + framer.overflowReason()
                          + " after "
                          + chunks
                          + " token chunks: the response was cut and measured no further")));
    }
  }

  /**
   * An SSE event with data, found by the framer, stamped with the read that completed its last data
   * line.
   */
  private void onEvent(
      byte[] bytes, int offset, int length, boolean terminal, long readNs, long read) {
    if (closed) {
      return;
    }
    boolean first = lastEventNs == 0;
    long lagNs = first || lag == null ? 0 : lag.lagNs(lastEventNs, readNs);
    lastEventNs = readNs;
    handoff.event(record, bytes, offset, length, readNs, read, lagNs);
    if (first) {
      armIdle(config.timeouts().idle().toMillis());
    }
    if (terminal && !graceArmed && !responseEnded) {
      graceArmed = true;
      // [DONE] arrived; the response's end follows at once on a healthy server
      vertx.setTimer(
          AFTER_DONE_GRACE_MS,
          id -> {
            if (!responseEnded && request != null) {
              request.reset();
            }
            endOfStream();
          });
    }
  }

  private void armIdle(long delayMs) {
    idleTimer =
        vertx.setTimer(
            Math.max(1, delayMs),
            id -> {
              if (closed) {
                return;
              }
              long idleNs = config.timeouts().idle().toNanos();
              long now = System.nanoTime();
              long quietNs = now - lastEventNs;
              if (quietNs >= idleNs) {
                // whether this is a stall (a token came before) is the publisher thread's call
                handoff.idleDue(record, now);
                armIdle(config.timeouts().idle().toMillis());
              } else {
                armIdle((idleNs - quietNs) / 1_000_000 + 1);
              }
            });
  }

  private void onEnd() {
    responseEnded = true;
    if (!closed) {
      // an event the close cut off, without its blank line, is taken as a plain client takes it
      framer.end();
    }
    endOfStream();
  }

  /** The stream is over (ended, or cut after [DONE]): the publisher thread judges what came. */
  private void endOfStream() {
    if (closed) {
      finishCall();
      return;
    }
    closed = true;
    cancelTimers();
    if (framer.events() == 0) {
      record.response(
          contentType,
          Failures.serverText(preview.toString(StandardCharsets.UTF_8)),
          framer.bytes());
    }
    handoff.end(record, System.nanoTime());
    finishCall();
  }

  private void onStreamError(Throwable cause) {
    if (closed) {
      finishCall();
      return;
    }
    fail(
        chunks ->
            Failures.ofStream(
                cause, url, config.proxy(), chunks, true, config.tls(), config.secrets()));
  }

  private RequestFailure notAStream(int status, String body) {
    String what = "HTTP " + status + " from POST " + url;
    String message;
    if (contentType.startsWith("text/html") || Failures.looksLikeHtml(body.strip())) {
      message =
          what
              + " is an HTML page ("
              + Failures.serverText(body)
              + "), not an event stream: check base_url (a login page, a proxy's page?)";
    } else {
      message =
          what
              + " is JSON, not an event stream ("
              + Failures.serverText(body)
              + "): check that the endpoint honours \"stream\": true";
    }
    return new RequestFailure(ErrorClass.PROTOCOL, status, redact(message));
  }

  private void readBody(HttpClientResponse response, java.util.function.Consumer<String> then) {
    Buffer body = Buffer.buffer();
    response.handler(
        b -> {
          if (body.length() < ERROR_BODY_LIMIT) {
            body.appendBuffer(b, 0, Math.min(b.length(), ERROR_BODY_LIMIT - body.length()));
          }
        });
    response.endHandler(
        v -> {
          responseEnded = true;
          then.accept(body.toString(StandardCharsets.UTF_8));
        });
    response.exceptionHandler(t -> then.accept(body.toString(StandardCharsets.UTF_8)));
  }

  /** The loop saw the request fail: the publisher thread records why, with its chunk count. */
  private void fail(IntFunction<RequestFailure> why) {
    if (closed) {
      return;
    }
    closed = true;
    failure = why;
    cancelTimers();
    record.failure(why);
    handoff.failed(record, System.nanoTime());
    if (request != null && !responseEnded) {
      request.reset();
    }
    finishCall();
  }

  /**
   * The publisher thread found the request over (the stream said it failed, or a deadline it judged
   * passed): stop the exchange. Called from the publisher thread.
   */
  private void abort() {
    context.runOnContext(
        v -> {
          if (completed) {
            return;
          }
          closed = true;
          cancelTimers();
          if (request != null && !responseEnded) {
            request.reset();
          }
          finishCall();
        });
  }

  /**
   * Why the exchange failed as the loop saw it (refused, not a stream, connection), or null when
   * the server answered a stream; read it once the call completed. Not the measurement's verdict,
   * which the publisher thread gives.
   */
  public RequestFailure loopFailure() {
    return failure == null ? null : failure.apply(0);
  }

  /**
   * Whether the endpoint answered (a response head came), did not (no connection, TLS, a connection
   * closed before any response), or neither; read once the call completed.
   */
  public EndpointBackoff.Outcome endpointOutcome() {
    if (answered) {
      return EndpointBackoff.Outcome.ANSWERED;
    }
    RequestFailure f = loopFailure();
    return f != null
            && (f.errorClass() == ErrorClass.CONNECTION
                || f.errorClass() == ErrorClass.TIMEOUT_CONNECT)
        ? EndpointBackoff.Outcome.UNREACHABLE
        : EndpointBackoff.Outcome.OTHER;
  }

  private void finishCall() {
    if (completed) {
      return;
    }
    completed = true;
    promise.complete();
  }

  private void cancelTimers() {
    vertx.cancelTimer(totalTimer);
    if (firstTokenTimer >= 0) {
      vertx.cancelTimer(firstTokenTimer);
    }
    if (idleTimer >= 0) {
      vertx.cancelTimer(idleTimer);
    }
  }

  private String redact(String text) {
    return config.secrets().redact(text);
  }

  private static String lower(String header) {
    return header == null ? "" : header.toLowerCase(Locale.ROOT).trim();
  }
}

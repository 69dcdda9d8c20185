package io.tpotstream.producer.http;

import io.tpotstream.common.Json;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.dialect.Chunk;
import io.tpotstream.producer.dialect.Dialect;
import io.tpotstream.producer.dialect.StreamReader;
import io.tpotstream.producer.sse.SseEvent;
import io.tpotstream.producer.sse.SseParser;
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
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

/**
 * One streaming request, start to end, on one Vert.x event loop. The request start is taken just
 * before the HTTP client is asked to send (before pool wait, connect and TLS); each network read is
 * timestamped with {@code System.nanoTime()} before any parsing and that time goes to every SSE
 * event the read completes. Events go to the publisher as they happen; nothing here blocks.
 */
public final class StreamingCall {
  private static final int ERROR_BODY_LIMIT = 64 * 1024;
  private static final int PREVIEW_BYTES = 200;
  private static final long AFTER_DONE_GRACE_MS = 1000;

  private final Vertx vertx;
  private final HttpClient client;
  private final ProducerConfig config;
  private final Dialect dialect;
  private final EventContext events;
  private final RequestSpec spec;
  private final URI url;
  private final Promise<CallOutcome> promise = Promise.promise();
  private final StreamReader reader;
  private final SseParser parser = new SseParser(this::onEvent);

  private final Context context;
  private long startNs;
  private Long scheduleLagNs;
  private long[] arrivalsNs = new long[64];
  private int[] tokensPerChunk = new int[64];
  private int chunks;
  private int malformed;
  private int sseEvents;
  private long lastEventNs;
  private long endNs;
  private RequestFailure failure;
  private boolean measured;
  private boolean completed;
  private boolean headersReceived;
  private boolean responseEnded;
  private String contentType = "";
  private final Buffer preview = Buffer.buffer();
  private HttpClientRequest request;
  private long totalTimer = -1;
  private long firstTokenTimer = -1;
  private long idleTimer = -1;

  /** Creates the call on the current event-loop context, which then runs all of it. */
  public StreamingCall(
      Vertx vertx,
      HttpClient client,
      ProducerConfig config,
      Dialect dialect,
      EventContext events,
      RequestSpec spec) {
    this.vertx = vertx;
    this.client = client;
    this.config = config;
    this.dialect = dialect;
    this.events = events;
    this.spec = spec;
    this.url = config.streamUrl();
    this.reader = dialect.newReader();
    this.context = vertx.getOrCreateContext();
  }

  /**
   * Starts the request; call on the event-loop context the call was created on. Never fails: errors
   * are outcomes.
   */
  public Future<CallOutcome> start() {
    Buffer body;
    try {
      body =
          Buffer.buffer(
              Json.MAPPER.writeValueAsBytes(
                  dialect.requestBody(spec.model(), spec.messages(), spec.maxTokens(), config)));
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode the request body", e);
    }
    RequestOptions options = requestOptions();
    startNs = System.nanoTime();
    scheduleLagNs = spec.intendedNs() == null ? null : startNs - spec.intendedNs();
    events
        .sink()
        .accept(
            TokenEvent.start(
                events.clock().tsMs(startNs),
                events.runId(),
                spec.requestId(),
                spec.model(),
                spec.labels(),
                scheduleLagNs,
                events.producerId()));
    totalTimer =
        vertx.setTimer(
            config.timeouts().total().toMillis(),
            id ->
                fail(
                    new RequestFailure(
                        ErrorClass.TIMEOUT_TOTAL,
                        null,
                        "the request took longer than "
                            + config.timeouts().total().toMillis()
                            + " ms in total ("
                            + chunks
                            + " token chunks so far): raise timeout or lower max_tokens")));
    firstTokenTimer =
        vertx.setTimer(
            config.timeouts().firstToken().toMillis(),
            id -> {
              if (chunks == 0) {
                fail(
                    new RequestFailure(
                        ErrorClass.TIMEOUT_FIRST_TOKEN,
                        null,
                        "no output token within "
                            + config.timeouts().firstToken().toMillis()
                            + " ms of the request start: the server is overloaded or queueing;"
                            + " check it or raise timeouts.first_token"));
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
          Failures.ofConnect(
              cause, url, config.proxy(), config.timeouts().connect(), config.apiKey()));
      return;
    }
    request = req;
    if (measured) {
      req.reset();
      return;
    }
    req.send(body)
        .onComplete(
            ar -> {
              if (ar.failed()) {
                fail(
                    Failures.ofStream(
                        ar.cause(), url, config.proxy(), chunks, false, config.apiKey()));
              } else {
                onResponse(ar.result());
              }
            });
  }

  private void onResponse(HttpClientResponse response) {
    headersReceived = true;
    if (measured) {
      response.handler(b -> {});
      response.endHandler(v -> onEnd());
      response.exceptionHandler(t -> onEnd());
      return;
    }
    int status = response.statusCode();
    contentType = lower(response.getHeader("Content-Type"));
    if (status >= 300 && status < 400) {
      String location = response.getHeader("Location");
      readBody(
          response,
          text -> fail(Failures.ofRedirect(status, "POST", url, location, config.apiKey())));
      return;
    }
    if (status < 200 || status > 299) {
      String retryAfter = response.getHeader("Retry-After");
      readBody(
          response,
          text -> fail(Failures.ofStatus(status, "POST", url, text, retryAfter, config.apiKey())));
      return;
    }
    if (contentType.startsWith("application/json") || contentType.startsWith("text/html")) {
      readBody(response, text -> fail(notAStream(status, text)));
      return;
    }
    response.handler(this::onBytes);
    response.endHandler(v -> onEnd());
    response.exceptionHandler(this::onStreamError);
  }

  private void onBytes(Buffer buffer) {
    long arrivalNs = System.nanoTime();
    if (measured) {
      return;
    }
    if (preview.length() < PREVIEW_BYTES) {
      preview.appendBuffer(buffer, 0, Math.min(buffer.length(), PREVIEW_BYTES - preview.length()));
    }
    byte[] bytes = buffer.getBytes();
    parser.feed(bytes, 0, bytes.length, arrivalNs);
  }

  private void onEvent(SseEvent event) {
    if (measured) {
      return;
    }
    sseEvents++;
    lastEventNs = event.arrivalNs();
    Chunk chunk = reader.read(event);
    if (chunk instanceof Chunk.Token token) {
      onToken(event.arrivalNs(), token);
    } else if (chunk instanceof Chunk.Done) {
      succeed(event.arrivalNs());
    } else if (chunk instanceof Chunk.Malformed) {
      malformed++;
    } else if (chunk instanceof Chunk.Failed failed) {
      fail(new RequestFailure(ErrorClass.PROTOCOL, null, redact(failed.message())));
    }
  }

  private void onToken(long arrivalNs, Chunk.Token token) {
    if (chunks == arrivalsNs.length) {
      arrivalsNs = Arrays.copyOf(arrivalsNs, chunks * 2);
      tokensPerChunk = Arrays.copyOf(tokensPerChunk, chunks * 2);
    }
    arrivalsNs[chunks] = arrivalNs;
    tokensPerChunk[chunks] = token.tokens();
    events
        .sink()
        .accept(
            TokenEvent.token(
                events.clock().tsMs(arrivalNs),
                events.runId(),
                spec.requestId(),
                spec.model(),
                spec.labels(),
                arrivalNs - startNs,
                chunks,
                token.tokens(),
                token.kind(),
                events.producerId()));
    chunks++;
    if (chunks == 1) {
      vertx.cancelTimer(firstTokenTimer);
      armIdle(config.timeouts().idle().toMillis());
    }
  }

  private void armIdle(long delayMs) {
    idleTimer =
        vertx.setTimer(
            Math.max(1, delayMs),
            id -> {
              long idleNs = config.timeouts().idle().toNanos();
              long quietNs = System.nanoTime() - lastEventNs;
              if (quietNs >= idleNs) {
                fail(
                    new RequestFailure(
                        ErrorClass.TIMEOUT_IDLE,
                        null,
                        "the stream stalled: nothing for "
                            + config.timeouts().idle().toMillis()
                            + " ms after "
                            + chunks
                            + " token chunks: the server stalled; check it or raise"
                            + " timeouts.idle"));
              } else if (!measured) {
                armIdle((idleNs - quietNs) / 1_000_000 + 1);
              }
            });
  }

  private void onEnd() {
    responseEnded = true;
    if (measured) {
      complete();
      return;
    }
    long now = System.nanoTime();
    String pending = parser.pendingData();
    if (pending != null && pending.trim().equals("[DONE]") || reader.finished()) {
      succeed(now);
    } else if (sseEvents == 0) {
      String head = preview.toString(StandardCharsets.UTF_8);
      fail(
          new RequestFailure(
              ErrorClass.PROTOCOL,
              null,
              redact(
                  "the response to POST "
                      + url
                      + " had no server-sent events (Content-Type '"
                      + contentType
                      + "', "
                      + parser.bytes()
                      + " bytes"
                      + (head.isBlank() ? "" : ": " + Failures.serverText(head))
                      + "): check that base_url points at an OpenAI/Anthropic-compatible API")));
    } else {
      fail(
          new RequestFailure(
              ErrorClass.TRUNCATED,
              null,
              "the stream ended after "
                  + chunks
                  + " token chunks without [DONE] or a finish reason: the server or a proxy"
                  + " ended it early"));
    }
  }

  private void onStreamError(Throwable cause) {
    if (measured) {
      complete();
      return;
    }
    fail(Failures.ofStream(cause, url, config.proxy(), chunks, true, config.apiKey()));
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

  private void succeed(long atNs) {
    if (measured) {
      return;
    }
    measured = true;
    endNs = atNs;
    cancelTimers();
    events
        .sink()
        .accept(
            TokenEvent.end(
                events.clock().tsMs(atNs),
                events.runId(),
                spec.requestId(),
                spec.model(),
                spec.labels(),
                atNs - startNs,
                chunks,
                reader.promptTokens(),
                reader.completionTokens(),
                reader.finishReason(),
                malformed > 0 ? malformed : null,
                events.producerId()));
    if (responseEnded) {
      complete();
    } else {
      // [DONE] arrived; the response's end follows at once on a healthy server
      vertx.setTimer(
          AFTER_DONE_GRACE_MS,
          id -> {
            if (!completed && request != null) {
              request.reset();
            }
            complete();
          });
    }
  }

  private void fail(RequestFailure f) {
    if (measured) {
      return;
    }
    measured = true;
    failure = f;
    endNs = System.nanoTime();
    cancelTimers();
    events
        .sink()
        .accept(
            TokenEvent.error(
                events.clock().tsMs(endNs),
                events.runId(),
                spec.requestId(),
                spec.model(),
                spec.labels(),
                endNs - startNs,
                chunks,
                f.errorClass().wire(),
                f.httpStatus(),
                f.message(),
                malformed > 0 ? malformed : null,
                events.producerId()));
    if (request != null && !responseEnded) {
      request.reset();
    }
    complete();
  }

  private void complete() {
    if (completed) {
      return;
    }
    completed = true;
    promise.complete(
        new CallOutcome(
            spec.model(),
            startNs,
            arrivalsNs,
            tokensPerChunk,
            chunks,
            endNs,
            reader.completionTokens(),
            failure,
            scheduleLagNs));
  }

  private void cancelTimers() {
    vertx.cancelTimer(totalTimer);
    vertx.cancelTimer(firstTokenTimer);
    if (idleTimer >= 0) {
      vertx.cancelTimer(idleTimer);
    }
  }

  private String redact(String text) {
    return config.apiKey() == null ? text : config.apiKey().redact(text);
  }

  private static String lower(String header) {
    return header == null ? "" : header.toLowerCase(Locale.ROOT).trim();
  }
}

package io.tpotstream.proxy.measure;

import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.producer.dialect.Chunk;
import io.tpotstream.producer.dialect.Dialect;
import io.tpotstream.producer.dialect.StreamReader;
import io.tpotstream.producer.http.ErrorClass;
import io.tpotstream.producer.sse.SseEvent;
import io.tpotstream.producer.sse.SseParser;
import io.tpotstream.proxy.http.ExchangeObserver;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import java.util.Locale;
import java.util.SortedMap;

/**
 * The measurement of one exchange: the token events a streaming response gives, the same the
 * producer writes for its own requests. The request start is when the proxy forwarded the request
 * (its client was asked to send); each response chunk carries the time it was read, taken before it
 * was forwarded; the producer's SSE parser and OpenAI/Anthropic dialects decide what is an output
 * token. Runs on the exchange's event loop, after the bytes concerned were forwarded. Messages
 * never quote the request or the response (no prompt, no completion, no key).
 */
final class Measurement implements ExchangeObserver {
  private enum State {
    /** The request body is still arriving. */
    READING_REQUEST,
    /** A streaming request whose response is awaited or being read. */
    MEASURING,
    /** Not measured (not a streaming request, or the response came before the body ended). */
    OFF,
    /** The end or error event went out. */
    DONE
  }

  private final Measurements owner;
  private final Route route;
  private final String path;
  private final String requestId;
  private final SortedMap<String, String> labels;
  private final long startNs;
  private final RequestProbe probe = new RequestProbe();
  private final StreamReader reader;
  private final SseParser parser = new SseParser(this::onEvent);
  private State state = State.READING_REQUEST;
  private String model;
  private boolean wholeBody = true;
  private boolean started;
  private Decompressor decompressor;
  private Failure earlyFailure;
  private long earlyFailureNs;
  private int chunks;
  private int malformed;
  private int sseEvents;

  Measurement(
      Measurements owner,
      Route route,
      String path,
      String requestId,
      SortedMap<String, String> labels,
      long startNs) {
    this.owner = owner;
    this.route = route;
    this.path = path;
    this.requestId = requestId;
    this.labels = labels;
    this.startNs = startNs;
    this.reader = Dialect.of(route.api()).newReader();
  }

  @Override
  public void requestBody(Buffer chunk) {
    if (state == State.READING_REQUEST) {
      probe.feed(chunk);
    }
  }

  @Override
  public void requestEnd() {
    if (state != State.READING_REQUEST) {
      return;
    }
    RequestProbe.Facts facts = probe.read();
    model = facts.model() == null || facts.model().isBlank() ? "unknown" : facts.model();
    wholeBody = facts.whole();
    if (!facts.stream()) {
      if (wholeBody) {
        owner.metrics().notStreaming();
        state = State.OFF;
        return;
      }
      // a body too long to see its "stream": the response's type decides
      state = State.MEASURING;
      return;
    }
    begin();
    if (earlyFailure != null) {
      failed(earlyFailure, earlyFailureNs);
    }
  }

  @Override
  public void response(int status, MultiMap headers) {
    if (state == State.READING_REQUEST) {
      // an answer before the whole request: nothing to measure
      state = State.OFF;
      return;
    }
    if (state != State.MEASURING) {
      return;
    }
    String contentType = lower(headers.get("Content-Type"));
    String encoding = lower(headers.get("Content-Encoding"));
    if (!started) {
      if (!contentType.startsWith("text/event-stream")) {
        owner.metrics().notStreaming();
        state = State.OFF;
        return;
      }
      begin();
    }
    long now = System.nanoTime();
    if (status < 200 || status > 299) {
      error(
          now,
          ErrorClass.ofStatus(status),
          status,
          "HTTP " + status + " from the upstream for POST " + path + advice(status));
    } else if (!contentType.startsWith("text/event-stream")) {
      error(
          now,
          ErrorClass.PROTOCOL,
          status,
          "HTTP "
              + status
              + " from the upstream for POST "
              + path
              + " is '"
              + contentType
              + "', not an event stream, although the request asked for \"stream\": true");
    } else {
      try {
        decompressor = Decompressor.of(encoding);
      } catch (IllegalArgumentException e) {
        error(
            now,
            ErrorClass.PROTOCOL,
            status,
            "the event stream for POST "
                + path
                + " is compressed with "
                + encoding
                + ": the proxy forwards it unchanged but can time only gzip, deflate or plain"
                + " streams");
      }
    }
  }

  private void begin() {
    started = true;
    state = State.MEASURING;
    owner.metrics().measured();
    owner.publish(
        TokenEvent.start(
            owner.clock().tsMs(startNs),
            owner.runId(),
            requestId,
            model,
            labels,
            null,
            owner.producerId()));
  }

  @Override
  public void chunk(Buffer chunk, long arrivalNs) {
    if (state != State.MEASURING) {
      return;
    }
    byte[] bytes = chunk.getBytes();
    if (decompressor != null) {
      try {
        bytes = decompressor.inflate(bytes);
      } catch (RuntimeException e) {
        error(
            arrivalNs,
            ErrorClass.PROTOCOL,
            null,
            "the compressed event stream for POST "
                + path
                + " could not be inflated after "
                + chunks
                + " token chunks");
        return;
      }
    }
    parser.feed(bytes, 0, bytes.length, arrivalNs);
  }

  private void onEvent(SseEvent event) {
    if (state != State.MEASURING) {
      return;
    }
    sseEvents++;
    Chunk chunk = reader.read(event);
    if (chunk instanceof Chunk.Token token) {
      owner.publish(
          TokenEvent.token(
              owner.clock().tsMs(event.arrivalNs()),
              owner.runId(),
              requestId,
              model,
              labels,
              event.arrivalNs() - startNs,
              chunks,
              token.tokens(),
              token.kind(),
              owner.producerId()));
      chunks++;
    } else if (chunk instanceof Chunk.Done) {
      succeed(event.arrivalNs());
    } else if (chunk instanceof Chunk.Malformed) {
      malformed++;
    } else if (chunk instanceof Chunk.Failed) {
      // the dialect's message may quote the stream: the event says only what happened
      error(
          event.arrivalNs(),
          ErrorClass.PROTOCOL,
          null,
          "the upstream's stream for POST "
              + path
              + " carried an error after "
              + chunks
              + " token chunks");
    }
  }

  @Override
  public void end(long atNs) {
    if (state != State.MEASURING) {
      return;
    }
    String pending = parser.pendingData();
    if (pending != null && pending.trim().equals("[DONE]") || reader.finished()) {
      succeed(atNs);
    } else if (sseEvents == 0) {
      error(
          atNs,
          ErrorClass.PROTOCOL,
          null,
          "the response to POST "
              + path
              + " had no server-sent events ("
              + parser.bytes()
              + " bytes): is the upstream an OpenAI/Anthropic-compatible API?");
    } else {
      error(
          atNs,
          ErrorClass.TRUNCATED,
          null,
          "the stream for POST "
              + path
              + " ended after "
              + chunks
              + " token chunks without [DONE] or a finish reason: the upstream ended it early");
    }
  }

  @Override
  public void failed(Failure failure, long atNs) {
    if (state == State.READING_REQUEST) {
      // the request's body has not been read yet (e.g. no connection): its end says whether it was
      // a streaming request
      earlyFailure = failure;
      earlyFailureNs = atNs;
      return;
    }
    if (state != State.MEASURING || !started) {
      return;
    }
    switch (failure) {
      case CONNECT ->
          error(
              atNs,
              ErrorClass.CONNECTION,
              null,
              "no connection to the upstream for POST " + path + ": check that it is up");
      case CONNECT_TIMEOUT ->
          error(
              atNs,
              ErrorClass.TIMEOUT_CONNECT,
              null,
              "no connection to the upstream for POST " + path + " within the connect timeout");
      case RESPONSE_TIMEOUT ->
          error(
              atNs,
              ErrorClass.TIMEOUT_FIRST_TOKEN,
              null,
              "the upstream sent no response for POST " + path + " within the idle timeout");
      case IDLE_TIMEOUT ->
          error(
              atNs,
              ErrorClass.TIMEOUT_IDLE,
              null,
              "the stream for POST "
                  + path
                  + " stalled for the idle timeout after "
                  + chunks
                  + " token chunks");
      case UPSTREAM_BROKE ->
          error(
              atNs,
              ErrorClass.CONNECTION,
              null,
              "the upstream connection broke after "
                  + chunks
                  + " token chunks (POST "
                  + path
                  + ")");
      case CLIENT_GONE ->
          error(
              atNs,
              ErrorClass.CANCELLED,
              null,
              "the client closed its connection after "
                  + chunks
                  + " token chunks (POST "
                  + path
                  + ")");
      case STOPPED ->
          error(
              atNs,
              ErrorClass.CANCELLED,
              null,
              "the proxy stopped after " + chunks + " token chunks (POST " + path + ")");
    }
  }

  private void succeed(long atNs) {
    done();
    owner.publish(
        TokenEvent.end(
            owner.clock().tsMs(atNs),
            owner.runId(),
            requestId,
            model,
            labels,
            atNs - startNs,
            chunks,
            reader.promptTokens(),
            reader.completionTokens(),
            reader.finishReason(),
            malformed > 0 ? malformed : null,
            owner.producerId()));
  }

  private void error(long atNs, ErrorClass errorClass, Integer httpStatus, String message) {
    done();
    owner.publish(
        TokenEvent.error(
            owner.clock().tsMs(atNs),
            owner.runId(),
            requestId,
            model,
            labels,
            atNs - startNs,
            chunks,
            errorClass.wire(),
            httpStatus,
            message,
            malformed > 0 ? malformed : null,
            owner.producerId()));
  }

  private void done() {
    state = State.DONE;
    if (decompressor != null) {
      decompressor.close();
      decompressor = null;
    }
  }

  private static String advice(int status) {
    return switch (status) {
      case 401 -> ": the client's API key was refused";
      case 403 -> ": the client's key may not use this model or endpoint";
      case 404 -> ": check --upstream's path prefix and the model name";
      case 429 -> ": the upstream's rate limit";
      default -> status >= 500 ? ": the upstream failed" : "";
    };
  }

  private static String lower(String header) {
    return header == null ? "" : header.toLowerCase(Locale.ROOT).trim();
  }
}

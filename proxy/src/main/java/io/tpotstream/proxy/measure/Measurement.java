package io.tpotstream.proxy.measure;

import io.tpotstream.producer.dialect.Dialect;
import io.tpotstream.producer.http.ErrorClass;
import io.tpotstream.producer.http.RequestFailure;
import io.tpotstream.producer.publish.Handoff;
import io.tpotstream.producer.publish.LoopLagMeter;
import io.tpotstream.producer.publish.MeasuredRequest;
import io.tpotstream.producer.sse.SseFramer;
import io.tpotstream.proxy.http.ExchangeObserver;
import io.tpotstream.proxy.prefix.PromptBlocks;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import java.util.Locale;
import java.util.SortedMap;
import java.util.function.IntFunction;

/**
 * The measurement of one exchange, the event loop's share, as the producer's {@code StreamingCall}
 * does it: the request start is when the proxy forwarded the request; each SSE event is found in
 * the response's bytes as they arrive (the producer's {@link SseFramer}) and handed, with the time
 * and number of the upstream read that completed its last data line, to the publisher thread
 * ({@link Handoff}), whose recorder reads it with the producer's dialect and publishes the
 * producer's token events. Runs on the exchange's event loop, after the bytes concerned were
 * forwarded; parses no JSON. What only the loop sees (status, content type, timeouts, disconnects)
 * becomes the request's failure, in messages that never quote the request or the response.
 */
final class Measurement implements ExchangeObserver {
  private enum State {
    /** The request body is still arriving. */
    READING_REQUEST,
    /** The body was too long to see whether it asked for a stream: the response will say. */
    UNDECIDED,
    /** A streaming request whose response is awaited or being read. */
    MEASURING,
    /** Not measured (not a streaming request, or the response came before the body ended). */
    OFF,
    /** The stream's end or failure was handed over. */
    DONE
  }

  private final Measurements owner;
  private final Route route;
  private final String path;
  private final String requestId;
  private final SortedMap<String, String> labels;
  private final long startNs;
  private final RequestProbe probe;
  private final SseFramer framer = new SseFramer(this::onEvent);
  private State state = State.READING_REQUEST;
  private String model;
  private PromptBlocks.Prefix prefix;
  private MeasuredRequest record;
  private Failure earlyFailure;
  private long earlyFailureNs;
  private String contentType = "";
  private Decompressor decompressor;
  private final LoopLagMeter lag = LoopLagMeter.current();
  private long lastEventNs;

  /** How long the upstream was held back by the client since the last event (ns). */
  private long heldSinceEventNs;

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
    this.probe = new RequestProbe(owner.prefixHashKey());
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
    model = Measurements.bounded(facts.model(), Measurements.MAX_MODEL_CHARS, owner.metrics());
    if (model == null || model.isBlank()) {
      model = "unknown";
    } else {
      owner.sawModel(model);
    }
    prefix = facts.prefix();
    if (facts.stream()) {
      begin();
      if (earlyFailure != null) {
        failed(earlyFailure, earlyFailureNs);
      }
    } else if (facts.whole()) {
      owner.metrics().notStreaming();
      state = State.OFF;
    } else {
      state = State.UNDECIDED;
    }
  }

  private void begin() {
    state = State.MEASURING;
    owner.metrics().measured();
    record =
        new MeasuredRequest(
            requestId,
            model,
            owner.warmup(),
            null,
            Dialect.of(route.api()).newReader(),
            // a stream that says it failed is the client's business: the proxy never cuts it
            () -> {},
            labels);
    record.started(startNs);
    if (prefix != null) {
      record.prefix(prefix.hashes(), prefix.blocks());
    }
    owner.handoff().start(record);
  }

  @Override
  public void response(int status, MultiMap headers) {
    contentType = lower(headers.get("Content-Type"));
    if (state == State.READING_REQUEST) {
      // an answer before the whole request: nothing to measure
      state = State.OFF;
      return;
    }
    if (state == State.UNDECIDED) {
      if (!contentType.startsWith("text/event-stream")) {
        owner.metrics().notStreaming();
        state = State.OFF;
        return;
      }
      begin();
    }
    if (state != State.MEASURING) {
      return;
    }
    long now = System.nanoTime();
    if (status < 200 || status > 299) {
      failResponse(
          now,
          ErrorClass.ofStatus(status),
          status,
          "HTTP " + status + " from the upstream for POST " + path + advice(status));
    } else if (!contentType.startsWith("text/event-stream")) {
      failResponse(
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
      String encoding = lower(headers.get("Content-Encoding"));
      try {
        decompressor = Decompressor.of(encoding);
      } catch (IllegalArgumentException e) {
        failResponse(
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

  @Override
  public void heldBack(long fromNs, long toNs) {
    if (state == State.MEASURING && lastEventNs != 0 && toNs > lastEventNs) {
      heldSinceEventNs = Math.max(heldSinceEventNs, toNs - Math.max(fromNs, lastEventNs));
    }
  }

  @Override
  public void chunk(Buffer chunk, long arrivalNs, long readNumber) {
    if (state != State.MEASURING) {
      return;
    }
    if (decompressor == null) {
      framer.feed(chunk, arrivalNs, readNumber);
    } else if (!inflate(chunk, arrivalNs, readNumber)) {
      return;
    }
    if (framer.overflowed()) {
      // an event past the cap: the client still gets every byte, the measurement ends here
      fail(
          arrivalNs,
          chunks ->
              new RequestFailure(
                  ErrorClass.PROTOCOL,
                  null,
                  "the event stream for POST "
                      + path
                      + " carried "
                      + framer.overflowReason()
                      + " after "
                      + chunks
                      + " token chunks: forwarded unchanged, measured no further"));
    }
  }

  /** Inflates a compressed read into the framer; false when the measurement ended here. */
  private boolean inflate(Buffer chunk, long arrivalNs, long readNumber) {
    boolean withinCap;
    try {
      withinCap =
          decompressor.inflate(
              chunk.getBytes(),
              (bytes, offset, length) -> {
                framer.feed(bytes, offset, length, arrivalNs, readNumber);
                return !framer.overflowed();
              });
    } catch (RuntimeException e) {
      fail(
          arrivalNs,
          chunks ->
              new RequestFailure(
                  ErrorClass.PROTOCOL,
                  null,
                  "the compressed event stream for POST "
                      + path
                      + " could not be inflated after "
                      + chunks
                      + " token chunks"));
      return false;
    }
    if (!withinCap) {
      int compressed = chunk.length();
      fail(
          arrivalNs,
          chunks ->
              new RequestFailure(
                  ErrorClass.PROTOCOL,
                  null,
                  String.format(
                      Locale.ROOT,
                      "one read of %,d compressed bytes in the event stream for POST %s inflated"
                          + " to more than %,d bytes (tpot's cap per read, against compression"
                          + " bombs) after %d token chunks: forwarded unchanged, measured no"
                          + " further",
                      compressed,
                      path,
                      Decompressor.MAX_INFLATED_PER_READ,
                      chunks)));
      return false;
    }
    return true;
  }

  /**
   * An SSE event with data, found by the framer, stamped with the read that completed its last data
   * line.
   */
  private void onEvent(
      byte[] bytes, int offset, int length, boolean terminal, long readNs, long read) {
    if (state == State.MEASURING) {
      long lagNs = lastEventNs == 0 || lag == null ? 0 : lag.lagNs(lastEventNs, readNs);
      // a slow client held the upstream back within this gap: its chunk was read late by as much
      lagNs = Math.max(lagNs, lastEventNs == 0 ? 0 : heldSinceEventNs);
      heldSinceEventNs = 0;
      lastEventNs = readNs;
      owner.handoff().event(record, bytes, offset, length, readNs, read, lagNs);
    }
  }

  @Override
  public void end(long atNs) {
    if (state != State.MEASURING) {
      return;
    }
    // an event the close cut off, without its blank line, is taken as a plain client takes it
    framer.end();
    state = State.DONE;
    closeDecompressor();
    if (framer.events() == 0) {
      // what the response looked like, without a preview of its text
      record.response(contentType, "", framer.bytes());
    }
    owner.handoff().end(record, atNs);
  }

  @Override
  public void failed(Failure failure, long atNs) {
    if (state == State.READING_REQUEST) {
      // the body has not been read yet (no connection): its end says whether it asked for a stream
      earlyFailure = failure;
      earlyFailureNs = atNs;
      return;
    }
    if (state != State.MEASURING) {
      return;
    }
    fail(
        atNs,
        switch (failure) {
          case CONNECT ->
              chunks ->
                  new RequestFailure(
                      ErrorClass.CONNECTION,
                      null,
                      "no connection to the upstream for POST " + path + ": check that it is up");
          case CONNECT_TIMEOUT ->
              chunks ->
                  new RequestFailure(
                      ErrorClass.TIMEOUT_CONNECT,
                      null,
                      "no connection to the upstream for POST "
                          + path
                          + " within the connect timeout");
          case QUEUE_TIMEOUT ->
              chunks ->
                  new RequestFailure(
                      ErrorClass.PROXY_QUEUE,
                      null,
                      "POST "
                          + path
                          + " waited in the proxy's queue for the connect timeout, every upstream"
                          + " connection busy (--max-connections), and was never sent");
          case RESPONSE_TIMEOUT ->
              chunks ->
                  new RequestFailure(
                      ErrorClass.TIMEOUT_FIRST_TOKEN,
                      null,
                      "the upstream sent no response for POST "
                          + path
                          + " within the idle timeout");
          case IDLE_TIMEOUT ->
              chunks ->
                  new RequestFailure(
                      ErrorClass.TIMEOUT_IDLE,
                      null,
                      "the stream for POST "
                          + path
                          + " stalled for the idle timeout after "
                          + chunks
                          + " token chunks");
          case UPSTREAM_BROKE ->
              chunks ->
                  new RequestFailure(
                      ErrorClass.CONNECTION,
                      null,
                      "the upstream connection broke after "
                          + chunks
                          + " token chunks (POST "
                          + path
                          + ")");
          case CLIENT_GONE ->
              chunks ->
                  new RequestFailure(
                      ErrorClass.CANCELLED,
                      null,
                      "the client closed its connection after "
                          + chunks
                          + " token chunks (POST "
                          + path
                          + ")");
          case STOPPED ->
              chunks ->
                  new RequestFailure(
                      ErrorClass.CANCELLED,
                      null,
                      "the proxy stopped after " + chunks + " token chunks (POST " + path + ")");
        });
  }

  /** The loop saw the request fail: the publisher thread records why, with its chunk count. */
  /** Fails the request at its response, for a reason that does not depend on the chunks read. */
  private void failResponse(long atNs, ErrorClass errorClass, int status, String message) {
    fail(atNs, chunks -> new RequestFailure(errorClass, status, message));
  }

  private void fail(long atNs, IntFunction<RequestFailure> why) {
    state = State.DONE;
    closeDecompressor();
    record.failure(why);
    owner.handoff().failed(record, atNs);
  }

  private void closeDecompressor() {
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

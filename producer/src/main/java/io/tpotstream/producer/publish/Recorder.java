package io.tpotstream.producer.publish;

import io.tpotstream.common.engine.EngineTiming;
import io.tpotstream.common.event.EngineBounds;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenTemplate;
import io.tpotstream.producer.dialect.Chunk;
import io.tpotstream.producer.dialect.EngineReport;
import io.tpotstream.producer.http.CallOutcome;
import io.tpotstream.producer.http.ErrorClass;
import io.tpotstream.producer.http.RequestFailure;
import io.tpotstream.producer.sse.SseFields;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.SortedMap;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The publisher thread's reading of the hand-off: what each request's SSE events mean (the
 * dialect's streaming JSON reader), the token events that follow from them, whether a chunk came
 * out of the same socket read as the chunk before it, and each finished request's outcome for the
 * producer's own table. Decisions that need the meaning of the stream are taken here, in stream
 * order: a stream that says it failed, and the first-token and idle deadlines (the event loop only
 * reports that the time passed). Runs on the publisher thread only.
 */
public final class Recorder {
  /** The {@code source} of every event this producer writes. */
  public static final String SOURCE = "producer";

  private static final Logger LOG = LoggerFactory.getLogger(Recorder.class);

  /**
   * The largest time a server may report of a request ({@link EngineReport}), in ms: what the end
   * event's {@code engineTiming} holds ({@link EngineBounds#MAX_TIMING_US}, an hour, past any
   * request's timeout). A value above it, below 0 or not a number is left out and counted as a
   * malformed chunk.
   */
  public static final double MAX_ENGINE_MS = EngineBounds.MAX_TIMING_US / 1000.0;

  private final String runId;
  private final String producerId;
  private final String source;
  private final SortedMap<String, String> labels;
  private final AnchoredClock clock;
  private final Duration firstTokenTimeout;
  private final Duration idleTimeout;
  private final String url;
  private final UnaryOperator<String> redact;
  private final Consumer<CallOutcome> outcomes;
  private final SseFields fields = new SseFields();
  private final java.util.Map<String, TokenTemplate.Family> families = new java.util.HashMap<>();
  private final java.util.Map<String, TokenTemplate.Family> warmupFamilies =
      new java.util.HashMap<>();
  private long coalescedSinceTake;
  private long coalescedTotal;
  private long touchedTotal;
  private long tokenChunks;
  private long warmupRequests;
  private boolean warnedCachedTokens;
  private boolean warnedEngineTiming;

  /** Warm-up token chunks: written by the publisher thread only, read by the warm-up's check. */
  private volatile long warmupChunks;

  /**
   * A recorder whose events carry {@code source} ({@link #SOURCE}, or e.g. {@code proxy}); a
   * request's own labels ({@link MeasuredRequest}) win over {@code labels}.
   *
   * @param url the streaming endpoint, printable (secrets masked), for messages
   * @param redact removes every secret of the config from any text that may quote one
   * @param outcomes receives each finished request that is not a warm-up request
   */
  public Recorder(
      String runId,
      String producerId,
      String source,
      SortedMap<String, String> labels,
      AnchoredClock clock,
      Duration firstTokenTimeout,
      Duration idleTimeout,
      String url,
      UnaryOperator<String> redact,
      Consumer<CallOutcome> outcomes) {
    this.runId = runId;
    this.producerId = producerId;
    this.source = source;
    this.labels = labels;
    this.clock = clock;
    this.firstTokenTimeout = firstTokenTimeout;
    this.idleTimeout = idleTimeout;
    this.url = url;
    this.redact = redact;
    this.outcomes = outcomes;
  }

  /** The {@code source} of this recorder's events. */
  String source() {
    return source;
  }

  /** Coalesced token chunks since the last call (for a heartbeat). */
  long takeCoalesced() {
    long n = coalescedSinceTake;
    coalescedSinceTake = 0;
    return n;
  }

  /** Token chunks that came out of the same socket read as the chunk before, over the run. */
  public long coalescedChunks() {
    return coalescedTotal;
  }

  /**
   * Token chunks whose gap the client's own lag touched (its event loop ran more than 1 ms late
   * within it), over the run.
   */
  public long touchedChunks() {
    return touchedTotal;
  }

  /** Token chunks over the run. */
  public long tokenChunks() {
    return tokenChunks;
  }

  /** Token chunks of warm-up requests read so far; any thread may ask. */
  public long warmupChunks() {
    return warmupChunks;
  }

  /** Warm-up requests finished (left out of the outcomes). */
  public long warmupRequests() {
    return warmupRequests;
  }

  void process(Slot slot, OutageBuffer out) {
    MeasuredRequest r = slot.request;
    switch (slot.type) {
      case Slot.START -> start(r, out);
      case Slot.EVENT -> event(r, slot, out);
      case Slot.END -> end(r, slot, out);
      case Slot.FAILED -> {
        if (!r.finished) {
          fail(r, slot.ns, r.failure.apply(r.chunks), out);
        }
      }
      case Slot.FIRST_TOKEN_DUE -> {
        if (!r.finished && r.chunks == 0) {
          fail(
              r,
              slot.ns,
              new RequestFailure(
                  ErrorClass.TIMEOUT_FIRST_TOKEN,
                  null,
                  "no output token within "
                      + firstTokenTimeout.toMillis()
                      + " ms of the request start: the server is overloaded or queueing;"
                      + " check it or raise timeouts.first_token"),
              out);
          r.abort.run();
        }
      }
      case Slot.IDLE_DUE -> {
        if (!r.finished && r.chunks > 0 && slot.ns - r.lastEventNs >= idleTimeout.toNanos()) {
          fail(
              r,
              slot.ns,
              new RequestFailure(
                  ErrorClass.TIMEOUT_IDLE,
                  null,
                  "the stream stalled: nothing for "
                      + idleTimeout.toMillis()
                      + " ms after "
                      + r.chunks
                      + " token chunks: the server stalled; check it or raise timeouts.idle"),
              out);
          r.abort.run();
        }
      }
      default -> throw new IllegalStateException("unknown hand-off entry " + slot.type);
    }
  }

  private void start(MeasuredRequest r, OutageBuffer out) {
    r.template =
        TokenTemplate.of(runId, r.requestId, r.model, labelsOf(r), producerId, r.warmup, source);
    r.key = r.requestId.getBytes(StandardCharsets.UTF_8);
    TokenEvent start =
        TokenEvent.start(
            clock.tsMs(r.startNs),
            runId,
            r.requestId,
            r.model,
            labelsOf(r),
            r.scheduleLagNs,
            producerId);
    if (r.prefixHashes != null) {
      start = start.withPrefix(r.prefixHashes, r.prefixBlocks);
    }
    out.append(r, mark(start, r));
  }

  private void event(MeasuredRequest r, Slot slot, OutageBuffer out) {
    if (r.finished) {
      return;
    }
    r.sseEvents++;
    r.lastEventNs = slot.ns;
    r.lagSinceTokenNs += slot.lagNs;
    if (!fields.read(slot.bytes, 0, slot.length)) {
      return;
    }
    Chunk chunk =
        r.reader.read(fields.event(), fields.data(), fields.dataOffset(), fields.dataLength());
    if (chunk instanceof Chunk.Token token) {
      token(r, slot.ns, slot.read, token, out);
    } else if (chunk instanceof Chunk.Done) {
      succeed(r, slot.ns, out);
    } else if (chunk instanceof Chunk.Malformed) {
      r.malformed++;
    } else if (chunk instanceof Chunk.Failed failed) {
      fail(
          r,
          slot.ns,
          new RequestFailure(ErrorClass.PROTOCOL, null, redact.apply(failed.message())),
          out);
      r.abort.run();
    }
  }

  private void token(
      MeasuredRequest r, long arrivalNs, long read, Chunk.Token token, OutageBuffer out) {
    int seq = r.chunks;
    if (seq == r.arrivalsNs.length) {
      r.arrivalsNs = Arrays.copyOf(r.arrivalsNs, seq * 2);
      r.tokensPerChunk = Arrays.copyOf(r.tokensPerChunk, seq * 2);
    }
    r.arrivalsNs[seq] = arrivalNs;
    r.tokensPerChunk[seq] = token.tokens();
    boolean coalesced = seq > 0 && read == r.lastTokenRead;
    r.lastTokenRead = read;
    // the loop's lateness since the chunk before: what the client can have added to this gap
    int lagUs = seq == 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, r.lagSinceTokenNs / 1000);
    r.lagSinceTokenNs = 0;
    if (lagUs > 0) {
      touchedTotal++;
    }
    r.chunks++;
    tokenChunks++;
    if (r.warmup) {
      warmupChunks = warmupChunks + 1; // one writer
    }
    if (coalesced) {
      coalescedSinceTake++;
      coalescedTotal++;
    }
    out.appendToken(
        r,
        clock.tsMs(arrivalNs),
        arrivalNs - r.startNs,
        seq,
        HeldEvents.chunkBits(token.tokens(), token.kind(), coalesced),
        lagUs);
  }

  private void end(MeasuredRequest r, Slot slot, OutageBuffer out) {
    if (r.finished) {
      return;
    }
    if (r.reader.finished()) {
      succeed(r, slot.ns, out);
    } else if (r.sseEvents == 0) {
      fail(
          r,
          slot.ns,
          new RequestFailure(
              ErrorClass.PROTOCOL,
              null,
              redact.apply(
                  "the response to POST "
                      + url
                      + " had no server-sent events (Content-Type '"
                      + r.contentType
                      + "', "
                      + r.bytes
                      + " bytes"
                      + (r.preview.isBlank() ? "" : ": " + r.preview)
                      + "): check that base_url points at an OpenAI/Anthropic-compatible API")),
          out);
    } else {
      fail(
          r,
          slot.ns,
          new RequestFailure(
              ErrorClass.TRUNCATED,
              null,
              "the stream ended after "
                  + r.chunks
                  + " token chunks without [DONE] or a finish reason: the server or a proxy"
                  + " ended it early"),
          out);
    }
  }

  private void succeed(MeasuredRequest r, long atNs, OutageBuffer out) {
    r.cachedTokens = cachedTokens(r);
    r.engineTiming = engineTiming(r);
    out.append(
        r,
        mark(
            TokenEvent.end(
                    clock.tsMs(atNs),
                    runId,
                    r.requestId,
                    r.model,
                    labelsOf(r),
                    atNs - r.startNs,
                    r.chunks,
                    r.reader.promptTokens(),
                    r.reader.completionTokens(),
                    r.reader.finishReason(),
                    r.malformed > 0 ? r.malformed : null,
                    producerId)
                .withCachedTokens(r.cachedTokens)
                .withEngineTiming(r.engineTiming),
            r));
    finish(r, atNs, null);
  }

  /**
   * The engine timing a request's end event carries: what the server reported of it ({@link
   * EngineReport}), each value in µs when it is a number from 0 to {@link #MAX_ENGINE_MS}; else
   * that value is left out and the report counted as a malformed chunk (a warning says so, once).
   */
  private EngineTiming engineTiming(MeasuredRequest r) {
    EngineReport report = r.reader.engineReport();
    if (report == null) {
      return null;
    }
    boolean[] bad = {false};
    java.util.function.Function<Double, Long> micros =
        ms -> {
          if (ms == null) {
            return null;
          }
          if (!(ms >= 0 && ms <= MAX_ENGINE_MS)) {
            bad[0] = true;
            return null;
          }
          return Math.round(ms * 1000);
        };
    EngineTiming timing =
        new EngineTiming(
            micros.apply(report.queueMs()),
            micros.apply(report.ttftMs()),
            micros.apply(report.meanItlMs()),
            micros.apply(report.generationMs()));
    if (bad[0]) {
      r.malformed++;
      if (!warnedEngineTiming) {
        warnedEngineTiming = true;
        LOG.warn(
            "{} reported per-request metrics outside 0 to {} ms, or not numbers (request {}):"
                + " those values are left out and the chunk counted as malformed",
            url,
            (long) MAX_ENGINE_MS,
            r.requestId);
      }
    }
    boolean none =
        timing.queueUs() == null
            && timing.ttftUs() == null
            && timing.meanItlUs() == null
            && timing.generationUs() == null;
    return none ? null : timing;
  }

  /**
   * The cached prompt tokens a request's end event carries: what the server reported, when it
   * reported its prompt tokens too and no fewer; else none. A server that says it read more of the
   * prompt from its cache than the prompt holds contradicts itself: a warning says so, once.
   */
  private Integer cachedTokens(MeasuredRequest r) {
    Integer cached = r.reader.cachedTokens();
    Integer prompt = r.reader.promptTokens();
    if (cached == null || (prompt != null && cached >= 0 && cached <= prompt)) {
      return cached;
    }
    if (!warnedCachedTokens) {
      warnedCachedTokens = true;
      LOG.warn(
          "{} reported {} cached prompt tokens with {} prompt tokens (request {}): cached tokens"
              + " are left out of the events of such requests; check the server's usage"
              + " (prompt_tokens_details.cached_tokens, cache_read_input_tokens)",
          url,
          cached,
          prompt == null ? "no" : prompt,
          r.requestId);
    }
    return null;
  }

  private void fail(MeasuredRequest r, long atNs, RequestFailure f, OutageBuffer out) {
    out.append(
        r,
        mark(
            TokenEvent.error(
                clock.tsMs(atNs),
                runId,
                r.requestId,
                r.model,
                labelsOf(r),
                atNs - r.startNs,
                r.chunks,
                f.errorClass().wire(),
                f.httpStatus(),
                f.message(),
                r.malformed > 0 ? r.malformed : null,
                producerId),
            r));
    finish(r, atNs, f);
  }

  private void finish(MeasuredRequest r, long atNs, RequestFailure f) {
    r.finished = true;
    r.endNs = atNs;
    r.failed = f;
    if (r.warmup) {
      warmupRequests++;
      return;
    }
    outcomes.accept(
        new CallOutcome(
            r.requestId,
            r.model,
            labelsOf(r),
            r.startNs,
            r.arrivalsNs,
            r.tokensPerChunk,
            r.chunks,
            atNs,
            r.reader.completionTokens(),
            f == null ? r.reader.promptTokens() : null,
            f == null ? r.cachedTokens : null,
            f,
            r.scheduleLagNs,
            r.askedTokens,
            f == null ? r.engineTiming : null));
  }

  private SortedMap<String, String> labelsOf(MeasuredRequest r) {
    return r.labels != null ? r.labels : labels;
  }

  private TokenEvent mark(TokenEvent e, MeasuredRequest r) {
    TokenEvent marked = e.withSource(source);
    return r.warmup ? marked.asWarmup() : marked;
  }
}

package io.tpotstream.common.request;

import io.tpotstream.common.Windows;
import io.tpotstream.common.engine.EngineTiming;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventBounds;
import io.tpotstream.common.slo.GoodputLimits;
import io.tpotstream.common.stats.LatencyHistogram;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One request followed from its start to its end, giving its {@link RequestRecord} with the {@link
 * RequestRules}. Fed either with token events ({@link #apply}, {@code tpot stats}) or with what the
 * producer measured ({@link #start}, {@link #token}, {@link #end}, {@link #error}): the producer
 * publishes exactly those values, so both ways give the same record. Not thread-safe.
 */
public final class RequestTrace {
  private final String requestId;
  private String runId;
  private String model;
  private SortedMap<String, String> labels;
  private Long startMs;
  private Long scheduleLagNs;
  private boolean warmup;
  private long[] gapMicros = new long[16];
  private int[] gapTokens = new int[16];
  private int gaps;
  private int chunks;
  private long tokens;
  private int lastSeq = -1;
  private long firstElapsedNs;
  private long lastElapsedNs;
  private int firstChunkTokens;
  private long ttftNs = -1;
  private long lastTsMs = Long.MIN_VALUE;
  private Integer promptTokens;
  private Integer cachedTokens;
  private EngineTiming engineTiming;

  public RequestTrace(String requestId) {
    this.requestId = requestId;
  }

  /** The request started at {@code tsMs} (epoch ms of its {@code start} event). */
  public void start(
      long tsMs, String runId, String model, Map<String, String> labels, Long scheduleLagNs) {
    if (startMs == null) {
      startMs = tsMs;
      this.scheduleLagNs = scheduleLagNs;
    }
    identify(runId, model, labels);
    lastTsMs = Math.max(lastTsMs, tsMs);
  }

  /** Output-token chunk {@code seq} arrived {@code elapsedNs} after the start, with k tokens. */
  public void token(int seq, long elapsedNs, int chunkTokens) {
    if (chunks > 0 && seq <= lastSeq) {
      return; // a duplicate chunk event
    }
    int k = Math.max(1, chunkTokens);
    if (chunks == 0) {
      firstElapsedNs = elapsedNs;
      firstChunkTokens = k;
      if (RequestRules.givesTtft(seq)) {
        ttftNs = elapsedNs;
      }
    } else {
      if (gaps == gapMicros.length) {
        gapMicros = Arrays.copyOf(gapMicros, gaps * 2);
        gapTokens = Arrays.copyOf(gapTokens, gaps * 2);
      }
      // both within 0..7 days and k within 1..4096 (TokenEventBounds): the difference cannot
      // overflow
      gapMicros[gaps] = RequestRules.gapMicros(elapsedNs - lastElapsedNs, k);
      gapTokens[gaps] = k;
      gaps++;
    }
    chunks++;
    tokens += k;
    lastSeq = seq;
    lastElapsedNs = elapsedNs;
  }

  /**
   * The prompt tokens the API reported and, of those, the ones read from its prefix cache (each
   * null when not reported); given before {@link #end}.
   */
  public void promptUsage(Integer promptTokens, Integer cachedTokens) {
    this.promptTokens = promptTokens;
    this.cachedTokens = cachedTokens;
  }

  /**
   * What the engine said of the request in its response (the end event's {@code engineTiming};
   * null: nothing); given before {@link #end}.
   */
  public void engineTiming(EngineTiming timing) {
    this.engineTiming = timing;
  }

  /**
   * The stream ended {@code elapsedNs} after the start, complete.
   *
   * @param scratch a histogram this call may reset and use (one per thread, reused)
   */
  public RequestRecord end(
      long elapsedNs, Integer completionTokens, GoodputLimits goodput, LatencyHistogram scratch) {
    long outputTokens = RequestRules.outputTokens(completionTokens, tokens);
    long requestTpot =
        RequestRules.tooShort(chunks)
            ? -1
            : RequestRules.requestTpotMicros(
                firstElapsedNs, lastElapsedNs, outputTokens, firstChunkTokens);
    long e2e = RequestRules.micros(elapsedNs);
    Boolean good =
        goodput == null || goodput.isEmpty()
            ? null
            : goodput.meets(true, ttftNs < 0 ? -1 : RequestRules.micros(ttftNs), requestTpot, e2e);
    return record(
        RequestRecord.COMPLETED, null, null, e2e, outputTokens, requestTpot, good, scratch);
  }

  /**
   * The request failed {@code elapsedNs} after its start, with {@code errorClass} and {@code
   * message} (cut as its error event's is).
   */
  public RequestRecord error(
      long elapsedNs,
      String errorClass,
      String message,
      GoodputLimits goodput,
      LatencyHistogram scratch) {
    Boolean good = goodput == null || goodput.isEmpty() ? null : false;
    return record(
        RequestRecord.FAILED,
        errorClass,
        TokenEventBounds.fit(message, TokenEventBounds.MAX_MESSAGE_CHARS),
        RequestRules.micros(elapsedNs),
        tokens,
        -1,
        good,
        scratch);
  }

  /** The request never ended (the input ended, or it was silent past the request timeout). */
  public RequestRecord abandoned(GoodputLimits goodput, LatencyHistogram scratch) {
    Boolean good = goodput == null || goodput.isEmpty() ? null : false;
    return record(RequestRecord.ABANDONED, null, null, -1, tokens, -1, good, scratch);
  }

  /**
   * Applies one non-heartbeat event of this request.
   *
   * @return the record when the event ended the request (end or error), else null
   */
  public RequestRecord apply(TokenEvent e, GoodputLimits goodput, LatencyHistogram scratch) {
    lastTsMs = Math.max(lastTsMs, e.ts());
    if (e.inWarmup()) {
      warmup = true;
    }
    identify(e.runId(), e.model(), e.labels());
    return switch (e.type()) {
      case START -> {
        start(e.ts(), e.runId(), e.model(), e.labels(), e.scheduleLagNs());
        yield null;
      }
      case TOKEN -> {
        token(e.seq() == null ? chunks : e.seq(), orZero(e.elapsedNs()), e.tokensOrOne());
        yield null;
      }
      case END -> {
        promptUsage(e.promptTokens(), e.cachedTokens());
        engineTiming(e.engineTiming());
        yield end(orZero(e.elapsedNs()), e.completionTokens(), goodput, scratch);
      }
      case ERROR -> error(orZero(e.elapsedNs()), e.errorClass(), e.message(), goodput, scratch);
      case HEARTBEAT, ENGINE -> null;
    };
  }

  /** Records this request's TPOT samples so far into {@code into}. */
  public void recordGaps(LatencyHistogram into) {
    for (int i = 0; i < gaps; i++) {
      into.recordMicros(gapMicros[i], gapTokens[i]);
    }
  }

  /** Its TTFT in µs, or -1 when its first chunk was not seen. */
  public long ttftMicros() {
    return ttftNs < 0 ? -1 : RequestRules.micros(ttftNs);
  }

  /** The model and labels of the request (from its first event that had them). */
  public String model() {
    return model;
  }

  public SortedMap<String, String> labels() {
    return labels == null ? new TreeMap<>() : labels;
  }

  /** True when one of its events was marked as warm-up (left out of every statistic). */
  public boolean warmup() {
    return warmup;
  }

  /** {@code ts} of its latest event, epoch ms. */
  public long lastTsMs() {
    return lastTsMs;
  }

  public String requestId() {
    return requestId;
  }

  private void identify(String runId, String model, Map<String, String> labels) {
    if (this.runId == null) {
      this.runId = runId;
    }
    if (this.model == null) {
      this.model = model;
    }
    if (this.labels == null && labels != null) {
      this.labels = new TreeMap<>(labels);
    }
  }

  private RequestRecord record(
      String outcome,
      String errorClass,
      String message,
      long e2eMicros,
      long outputTokens,
      long requestTpotMicros,
      Boolean good,
      LatencyHistogram scratch) {
    long samples = 0;
    BigDecimal p50 = null;
    BigDecimal p99 = null;
    BigDecimal max = null;
    if (gaps > 0) {
      scratch.reset();
      recordGaps(scratch);
      samples = scratch.count();
      p50 = LatencyHistogram.ms(scratch.percentileMicros(50.0));
      p99 = LatencyHistogram.ms(scratch.percentileMicros(99.0));
      max = LatencyHistogram.ms(scratch.maxMicros());
    }
    EngineTiming engine =
        engineTiming == null ? new EngineTiming(null, null, null, null) : engineTiming;
    return new RequestRecord(
        requestId,
        runId,
        model,
        labels,
        startMs == null ? null : Windows.iso(startMs),
        startMs,
        outcome,
        errorClass,
        message,
        ttftNs < 0 ? null : LatencyHistogram.ms(RequestRules.micros(ttftNs)),
        e2eMicros < 0 ? null : LatencyHistogram.ms(e2eMicros),
        outputTokens,
        promptTokens,
        cachedTokens,
        requestTpotMicros < 0 ? null : LatencyHistogram.ms(requestTpotMicros),
        samples,
        p50,
        p99,
        max,
        scheduleLagNs == null ? null : LatencyHistogram.ms(RequestRules.micros(scheduleLagNs)),
        good,
        null,
        null,
        ms(engine.ttftUs()),
        ms(engine.meanItlUs()),
        ms(engine.queueUs()),
        ttftNs < 0 || engine.ttftUs() == null
            ? null
            : LatencyHistogram.ms(RequestRules.micros(ttftNs) - engine.ttftUs()),
        gaps == 0 || engine.meanItlUs() == null
            ? null
            : LatencyHistogram.ms(meanGapMicros() - engine.meanItlUs()));
  }

  /** The mean of this request's TPOT samples (a chunk of k tokens counts k of gap/k), µs. */
  private long meanGapMicros() {
    long sum = 0;
    long samples = 0;
    for (int i = 0; i < gaps; i++) {
      sum += gapMicros[i] * gapTokens[i];
      samples += gapTokens[i];
    }
    return RequestRules.divideRounded(sum, samples);
  }

  private static BigDecimal ms(Long micros) {
    return micros == null ? null : LatencyHistogram.ms(micros);
  }

  private static long orZero(Long value) {
    return value == null ? 0 : value;
  }
}

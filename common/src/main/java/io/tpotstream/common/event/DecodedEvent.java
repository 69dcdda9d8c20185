package io.tpotstream.common.event;

import io.tpotstream.common.engine.EngineSample;
import io.tpotstream.common.engine.EngineTiming;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SortedMap;

/**
 * A token event as the aggregator reads it: the fields its statistics use, in primitives, filled by
 * {@link TokenEventDecoder} and reused for the next record (copy what you keep). The request id is
 * kept as UTF-8 bytes (the record's key when it matches the event); {@link #model()} and {@link
 * #labels()} are read from the record only when asked, i.e. when a request starts.
 */
public final class DecodedEvent {
  EventType type;
  long ts;
  byte[] requestKey;
  String requestId;
  long elapsedNs;
  boolean hasSeq;
  int seq;
  boolean hasTokens;
  int tokens;
  boolean hasScheduleLag;
  long scheduleLagNs;
  boolean hasPromptTokens;
  int promptTokens;
  boolean hasCachedTokens;
  int cachedTokens;
  boolean hasCompletionTokens;
  int completionTokens;
  String errorClass;
  String producerId;
  long watermark;
  boolean isFinal;
  boolean hasClientPause;
  long clientPauseMaxUs;
  boolean hasLoopLag;
  long loopLagMaxUs;
  boolean coalesced;
  long clientLagUs;
  boolean warmup;
  EngineTiming engineTiming;
  EngineSample engine;

  // the series fields, read on demand from the record (or set from a TokenEvent)
  boolean seriesRead;
  String model;
  SortedMap<String, String> labels;
  byte[] source;
  TokenEventDecoder decoder;
  // where the compact scanner saw them in source (-1: not scanned)
  int modelStart = -1;
  int modelEnd;
  int labelsStart = -1;
  int labelsEnd;

  DecodedEvent() {}

  void clear() {
    type = null;
    ts = 0;
    requestKey = null;
    requestId = null;
    elapsedNs = 0;
    hasSeq = false;
    seq = 0;
    hasTokens = false;
    tokens = 0;
    hasScheduleLag = false;
    scheduleLagNs = 0;
    hasPromptTokens = false;
    promptTokens = 0;
    hasCachedTokens = false;
    cachedTokens = 0;
    hasCompletionTokens = false;
    completionTokens = 0;
    errorClass = null;
    producerId = null;
    watermark = 0;
    isFinal = false;
    hasClientPause = false;
    clientPauseMaxUs = 0;
    hasLoopLag = false;
    loopLagMaxUs = 0;
    coalesced = false;
    clientLagUs = 0;
    warmup = false;
    engineTiming = null;
    engine = null;
    seriesRead = false;
    model = null;
    labels = null;
    source = null;
    modelStart = -1;
    labelsStart = -1;
  }

  public EventType type() {
    return type;
  }

  /** Epoch ms from the producer's anchored clock. */
  public long ts() {
    return ts;
  }

  /** The request id's UTF-8 bytes (null for heartbeats and engine events); do not modify. */
  public byte[] requestKey() {
    return requestKey;
  }

  /** The request id (null for heartbeats and engine events). */
  public String requestId() {
    if (requestId == null && requestKey != null) {
      requestId = new String(requestKey, StandardCharsets.UTF_8);
    }
    return requestId;
  }

  /** Monotonic ns since the request start (0 when absent). */
  public long elapsedNs() {
    return elapsedNs;
  }

  /** The chunk's 0-based index (token events always carry it). */
  public int seq() {
    return seq;
  }

  /** Tokens this chunk carried (1 unless the API said otherwise). */
  public int tokensOrOne() {
    return hasTokens ? tokens : 1;
  }

  public boolean hasScheduleLag() {
    return hasScheduleLag;
  }

  public long scheduleLagNs() {
    return scheduleLagNs;
  }

  public boolean hasPromptTokens() {
    return hasPromptTokens;
  }

  /** The prompt tokens the API reported (end events). */
  public int promptTokens() {
    return promptTokens;
  }

  public boolean hasCachedTokens() {
    return hasCachedTokens;
  }

  /** The prompt tokens the API reported as read from its prefix cache (end events). */
  public int cachedTokens() {
    return cachedTokens;
  }

  public boolean hasCompletionTokens() {
    return hasCompletionTokens;
  }

  public int completionTokens() {
    return completionTokens;
  }

  public String errorClass() {
    return errorClass;
  }

  /** The producer of a heartbeat (null for other events, which do not need it). */
  public String producerId() {
    return producerId;
  }

  public long watermark() {
    return watermark;
  }

  /** True for a heartbeat that says its producer has stopped for good. */
  public boolean finalHeartbeat() {
    return type == EventType.HEARTBEAT && isFinal;
  }

  public boolean hasClientPause() {
    return hasClientPause;
  }

  /** The producer's own worst pause in the last second, µs (heartbeats). */
  public long clientPauseMaxUs() {
    return clientPauseMaxUs;
  }

  public boolean hasLoopLag() {
    return hasLoopLag;
  }

  /** The producer's worst event-loop lag in the last second, µs (heartbeats). */
  public long loopLagMaxUs() {
    return loopLagMaxUs;
  }

  /** True when this chunk arrived in the same socket read as the chunk before it. */
  public boolean coalesced() {
    return coalesced;
  }

  /**
   * How long the producer's event loop ran late within this chunk's gap, µs (0: not at all, or not
   * said): the most the client can have stretched the gap.
   */
  public long clientLagUs() {
    return clientLagUs;
  }

  /** True when this event belongs to a warm-up request. */
  public boolean warmup() {
    return warmup;
  }

  /**
   * What the engine said of this request in its response (an {@code end} event's {@code
   * engineTiming}), or null.
   */
  public EngineTiming engineTiming() {
    return engineTiming;
  }

  /**
   * One scrape interval of an engine's metrics (an {@code engine} event's {@code engine}), or null
   * for the other types. Its series is the event's {@link #model()} and {@link #labels()}.
   */
  public EngineSample engine() {
    return engine;
  }

  /** The model (read from the record now if it was not yet). */
  public String model() {
    readSeries();
    return model;
  }

  /** The labels, sorted, or null (read from the record now if they were not yet). */
  public SortedMap<String, String> labels() {
    readSeries();
    return labels;
  }

  /**
   * Whether the model and labels are known as the record wrote them (the compact scanner's case):
   * then {@link #seriesBytes}, {@link #seriesBytesHash} and {@link #seriesBytesEqual} give them as
   * bytes without reading them into strings and a map. The same bytes always name the same series.
   */
  public boolean hasSeriesBytes() {
    return modelStart >= 0 && source != null;
  }

  /** The model's bytes, a 0 byte and the labels object's bytes (none without labels). */
  public byte[] seriesBytes() {
    int model = modelEnd - modelStart;
    int labels = labelsStart < 0 ? 0 : labelsEnd - labelsStart;
    byte[] bytes = new byte[model + 1 + labels];
    System.arraycopy(source, modelStart, bytes, 0, model);
    if (labels > 0) {
      System.arraycopy(source, labelsStart, bytes, model + 1, labels);
    }
    return bytes;
  }

  /** {@code Arrays.hashCode(seriesBytes())}, without copying them. */
  public int seriesBytesHash() {
    int h = 1;
    for (int i = modelStart; i < modelEnd; i++) {
      h = 31 * h + source[i];
    }
    h = 31 * h;
    if (labelsStart >= 0) {
      for (int i = labelsStart; i < labelsEnd; i++) {
        h = 31 * h + source[i];
      }
    }
    return h;
  }

  /** Whether {@code bytes} equals {@link #seriesBytes()}, without copying them. */
  public boolean seriesBytesEqual(byte[] bytes) {
    int model = modelEnd - modelStart;
    int labels = labelsStart < 0 ? 0 : labelsEnd - labelsStart;
    return bytes.length == model + 1 + labels
        && bytes[model] == 0
        && Arrays.equals(bytes, 0, model, source, modelStart, modelEnd)
        && (labels == 0
            || Arrays.equals(bytes, model + 1, bytes.length, source, labelsStart, labelsEnd));
  }

  private void readSeries() {
    if (!seriesRead) {
      decoder.readSeries(this);
    }
  }
}

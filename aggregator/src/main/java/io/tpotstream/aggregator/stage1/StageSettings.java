package io.tpotstream.aggregator.stage1;

import io.tpotstream.common.Records;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.common.summary.WindowStats;
import java.time.Duration;
import java.util.List;

/**
 * The window rules both stages and the offline {@code stats} command share.
 *
 * @param windowSize tumbling window length, aligned to the epoch (whole ms, at least 1 ms)
 * @param grace extra close-time margin after a window's end before it closes
 * @param groupBy labels that, with the model, make up a series
 * @param requestTimeout a request with no event for this long (in close time) is abandoned
 * @param producerTimeout a producer whose watermark is this far behind the highest is stale
 * @param clientLagThreshold a window is {@code clientSuspect} when its producers' own event-loop
 *     lag or pause passed this
 * @param slo objectives evaluated on every window, and goodput limits judged per request
 * @param maxClockSkew an event time or watermark further ahead of its record's broker timestamp
 *     than this is not trusted (the record goes to the dead letters)
 */
public record StageSettings(
    Duration windowSize,
    Duration grace,
    List<String> groupBy,
    Duration requestTimeout,
    Duration producerTimeout,
    Duration clientLagThreshold,
    SloSpec slo,
    Duration maxClockSkew) {

  public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(10);
  public static final Duration DEFAULT_GRACE = Duration.ZERO;
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofMinutes(10);
  public static final Duration DEFAULT_PRODUCER_TIMEOUT = Duration.ofSeconds(60);
  public static final Duration DEFAULT_MAX_CLOCK_SKEW = Duration.ofMinutes(5);
  public static final Duration DEFAULT_CLIENT_LAG_THRESHOLD =
      Duration.ofNanos(WindowStats.DEFAULT_CLIENT_LAG_THRESHOLD_US * 1000);

  public StageSettings {
    if (windowSize == null || windowSize.toMillis() < 1) {
      throw new IllegalArgumentException(
          "window size must be at least 1 ms (got " + windowSize + "): check --window");
    }
    if (grace == null || grace.isNegative()) {
      throw new IllegalArgumentException("grace must not be negative (got " + grace + ")");
    }
    if (requestTimeout == null || requestTimeout.toMillis() < 1) {
      throw new IllegalArgumentException(
          "request timeout must be positive (got " + requestTimeout + "): check --request-timeout");
    }
    if (producerTimeout == null || producerTimeout.toMillis() < 1) {
      throw new IllegalArgumentException(
          "producer timeout must be positive (got "
              + producerTimeout
              + "): check --producer-timeout");
    }
    if (clientLagThreshold == null || clientLagThreshold.isNegative()) {
      throw new IllegalArgumentException(
          "client lag threshold must not be negative (got "
              + clientLagThreshold
              + "): check --client-lag-threshold");
    }
    maxClockSkew = maxClockSkew == null ? DEFAULT_MAX_CLOCK_SKEW : maxClockSkew;
    if (maxClockSkew.toMillis() < 1) {
      throw new IllegalArgumentException(
          "max clock skew must be positive (got " + maxClockSkew + "): check --max-clock-skew");
    }
    groupBy = groupBy == null ? List.of() : List.copyOf(groupBy);
    slo = slo == null ? SloSpec.NONE : slo;
  }

  /** The settings without an SLO. */
  public StageSettings(
      Duration windowSize,
      Duration grace,
      List<String> groupBy,
      Duration requestTimeout,
      Duration producerTimeout,
      Duration clientLagThreshold) {
    this(
        windowSize,
        grace,
        groupBy,
        requestTimeout,
        producerTimeout,
        clientLagThreshold,
        SloSpec.NONE,
        DEFAULT_MAX_CLOCK_SKEW);
  }

  /** The settings with the default client lag threshold (1 ms). */
  public StageSettings(
      Duration windowSize,
      Duration grace,
      List<String> groupBy,
      Duration requestTimeout,
      Duration producerTimeout) {
    this(windowSize, grace, groupBy, requestTimeout, producerTimeout, DEFAULT_CLIENT_LAG_THRESHOLD);
  }

  /**
   * The defaults: 10 s windows, no grace, series by model only, 10 min and 60 s timeouts, suspect
   * past 1 ms of client lag.
   */
  public static StageSettings defaults() {
    return new StageSettings(
        DEFAULT_WINDOW,
        DEFAULT_GRACE,
        List.of(),
        DEFAULT_REQUEST_TIMEOUT,
        DEFAULT_PRODUCER_TIMEOUT);
  }

  public StageSettings withWindow(Duration size) {
    return Records.with(this, "windowSize", size);
  }

  public StageSettings withGrace(Duration value) {
    return Records.with(this, "grace", value);
  }

  public StageSettings withGroupBy(List<String> labels) {
    return Records.with(this, "groupBy", labels);
  }

  public StageSettings withRequestTimeout(Duration value) {
    return Records.with(this, "requestTimeout", value);
  }

  public StageSettings withProducerTimeout(Duration value) {
    return Records.with(this, "producerTimeout", value);
  }

  public StageSettings withClientLagThreshold(Duration value) {
    return Records.with(this, "clientLagThreshold", value);
  }

  public StageSettings withMaxClockSkew(Duration value) {
    return Records.with(this, "maxClockSkew", value);
  }

  /** These settings with {@code value} evaluated on every window. */
  public StageSettings withSlo(SloSpec value) {
    return Records.with(this, "slo", value);
  }

  /** The window length in ms. */
  public long windowMs() {
    return windowSize.toMillis();
  }

  long graceMs() {
    return grace.toMillis();
  }

  long requestTimeoutMs() {
    return requestTimeout.toMillis();
  }

  long producerTimeoutMs() {
    return producerTimeout.toMillis();
  }

  /** The max clock skew in ms. */
  public long maxClockSkewMs() {
    return maxClockSkew.toMillis();
  }

  /** The client lag threshold in µs. */
  public long clientLagThresholdUs() {
    return clientLagThreshold.toNanos() / 1000;
  }
}

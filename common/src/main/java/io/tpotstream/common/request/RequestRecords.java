package io.tpotstream.common.request;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.tpotstream.common.Json;
import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.slo.GoodputLimits;
import io.tpotstream.common.stats.LatencyHistogram;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Per-request records from token events ({@code tpot stats --requests-out}) and their JSON line.
 */
public final class RequestRecords {
  private static final ObjectWriter WRITER = Json.MAPPER.writerFor(RequestRecord.class);
  private static final ObjectReader READER = Json.MAPPER.readerFor(RequestRecord.class);

  private RequestRecords() {}

  /** Told about each request when it is over, with its trace and its record. */
  public interface Finished {
    void request(RequestTrace trace, RequestRecord record);
  }

  /**
   * Follows every request in {@code events} (log order) and hands each finished one's record to
   * {@code records} when its end or error event comes; requests still open at the end of the input
   * follow as {@code abandoned}, in the order they started. Warm-up requests are left out, as from
   * every statistic.
   */
  public static void fromEvents(
      Iterable<TokenEvent> events, GoodputLimits goodput, Consumer<RequestRecord> records) {
    follow(events, goodput, (trace, record) -> records.accept(record));
  }

  /** As {@link #fromEvents}, handing out each request's trace too (its gaps, for example). */
  public static void follow(Iterable<TokenEvent> events, GoodputLimits goodput, Finished finished) {
    Follower follower = new Follower(goodput, finished);
    for (TokenEvent e : events) {
      follower.accept(e);
    }
    follower.finish();
  }

  /**
   * {@link #follow} one event at a time, for a reader that pushes them (a file read as a stream):
   * each request is handed out when its end or error event comes, those still open when {@link
   * #finish()} is called as {@code abandoned}, in the order they started; warm-up requests are left
   * out. Not thread-safe.
   */
  public static final class Follower {
    private final GoodputLimits goodput;
    private final Finished finished;
    private final Map<String, RequestTrace> open = new LinkedHashMap<>();
    private final LatencyHistogram scratch = new LatencyHistogram();

    public Follower(GoodputLimits goodput, Finished finished) {
      this.goodput = goodput;
      this.finished = finished;
    }

    /** Follows the next event in log order (heartbeats and events without a request skipped). */
    public void accept(TokenEvent e) {
      if (e.type() == EventType.HEARTBEAT || e.requestId() == null) {
        return;
      }
      RequestTrace trace = open.computeIfAbsent(e.requestId(), RequestTrace::new);
      RequestRecord record = trace.apply(e, goodput, scratch);
      if (record != null) {
        open.remove(e.requestId());
        if (!trace.warmup()) {
          finished.request(trace, record);
        }
      }
    }

    /** The input ended: every request still open is handed out as abandoned. */
    public void finish() {
      for (RequestTrace trace : open.values()) {
        if (!trace.warmup()) {
          finished.request(trace, trace.abandoned(goodput, scratch));
        }
      }
      open.clear();
    }
  }

  /** The record as one JSON line (no newline), fields in a fixed order. */
  public static String encode(RequestRecord record) {
    try {
      return WRITER.writeValueAsString(record);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("cannot encode the record of " + record.requestId(), e);
    }
  }

  /**
   * Reads one line written by {@link #encode}.
   *
   * @throws IllegalArgumentException when it is not such a record
   */
  public static RequestRecord decode(String line) {
    try {
      return READER.readValue(line);
    } catch (IOException e) {
      throw new IllegalArgumentException("not a request record: " + e.getMessage(), e);
    }
  }
}

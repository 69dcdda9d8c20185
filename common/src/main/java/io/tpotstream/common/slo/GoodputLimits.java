package io.tpotstream.common.slo;

import io.tpotstream.common.Durations;
import java.time.Duration;
import java.util.Locale;

/**
 * Per-request limits of {@code --goodput} (as vLLM's {@code --goodput} and DistServe define it: a
 * request is good when it met every limit; goodput is the share of finished requests that were
 * good). A failed or abandoned request is never good; a response with no token fails a TTFT limit;
 * a response too short for a request TPOT meets that limit (as vLLM counts it).
 *
 * @param ttft limit on the request's TTFT, or null
 * @param requestTpot limit on its request TPOT (vLLM's per-request "tpot"), or null
 * @param e2e limit on its E2E latency, or null
 */
public record GoodputLimits(Duration ttft, Duration requestTpot, Duration e2e) {

  /** No limits: every request of a spec without {@code --goodput}. */
  public static final GoodputLimits NONE = new GoodputLimits(null, null, null);

  /** Reads {@code ttft=1s,request_tpot=40ms,e2e=20s} (any subset); null or blank gives none. */
  public static GoodputLimits parse(String text) {
    if (text == null || text.isBlank()) {
      return NONE;
    }
    Duration ttft = null;
    Duration requestTpot = null;
    Duration e2e = null;
    for (String item : text.split(",")) {
      String t = item.trim();
      if (t.isEmpty()) {
        continue;
      }
      int eq = t.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException(
            "--goodput: '" + t + "' is not NAME=LIMIT (e.g. ttft=1s,request_tpot=40ms)");
      }
      String name = t.substring(0, eq).trim().toLowerCase(Locale.ROOT);
      Duration limit = Durations.parse("--goodput " + name, t.substring(eq + 1));
      switch (name) {
        case "ttft" -> ttft = limit;
        case "request_tpot" -> requestTpot = limit;
        case "e2e" -> e2e = limit;
        case "tpot" ->
            throw new IllegalArgumentException(
                "--goodput: 'tpot' is ambiguous here: a request's TPOT is request_tpot (vLLM's"
                    + " per-request tpot); write request_tpot="
                    + t.substring(eq + 1).trim());
        default ->
            throw new IllegalArgumentException(
                "--goodput: unknown limit '" + name + "': use ttft, request_tpot or e2e");
      }
    }
    return new GoodputLimits(ttft, requestTpot, e2e);
  }

  public boolean isEmpty() {
    return ttft == null && requestTpot == null && e2e == null;
  }

  /**
   * Whether one finished request met every limit.
   *
   * @param completed false for a failed or abandoned request
   * @param ttftMicros its TTFT in µs, or -1 when no token arrived
   * @param requestTpotMicros its request TPOT in µs, or -1 when it has none
   * @param e2eMicros its E2E in µs
   */
  public boolean meets(boolean completed, long ttftMicros, long requestTpotMicros, long e2eMicros) {
    if (!completed) {
      return false;
    }
    if (ttft != null && (ttftMicros < 0 || ttftMicros > micros(ttft))) {
      return false;
    }
    if (requestTpot != null && requestTpotMicros >= 0 && requestTpotMicros > micros(requestTpot)) {
      return false;
    }
    return e2e == null || e2eMicros <= micros(e2e);
  }

  /** The canonical text, which {@link #parse} reads back. */
  public String text() {
    StringBuilder t = new StringBuilder();
    append(t, "ttft", ttft);
    append(t, "request_tpot", requestTpot);
    append(t, "e2e", e2e);
    return t.toString();
  }

  private static void append(StringBuilder t, String name, Duration limit) {
    if (limit != null) {
      if (!t.isEmpty()) {
        t.append(',');
      }
      t.append(name).append('=').append(Durations.format(limit));
    }
  }

  private static long micros(Duration d) {
    return d.toNanos() / 1000;
  }
}

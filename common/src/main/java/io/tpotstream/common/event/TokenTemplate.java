package io.tpotstream.common.event;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * The token events of one request, encoded fast: exactly the bytes {@link TokenEventCodec#encode}
 * writes, without building an event per chunk. The codec stays the one definition of the format:
 * the template encodes a token event with marker numbers once per variant (kind, coalesced) and
 * keeps the bytes around the numbers; each chunk then only writes its four numbers into a reused
 * buffer. Where a marker cannot be found exactly once (an id that happens to contain it), it falls
 * back to the codec. Not thread-safe: one template per request, used by one thread.
 */
public final class TokenTemplate {
  private static final long TS = 1_357_913_579_135_791L;
  private static final long ELAPSED = 2_468_024_680_246_802L;
  private static final int SEQ = 1_357_924_680;
  private static final int TOKENS = 2_086_420_975;
  private static final TokenKind[] KINDS = TokenKind.values();

  private final String runId;
  private final String requestId;
  private final String model;
  private final Map<String, String> labels;
  private final String producerId;
  private final boolean warmup;
  private final String source;

  /** Per variant (kind × coalesced): the five byte runs around the numbers, or null if unusable. */
  private final byte[][][] parts = new byte[KINDS.length * 2][][];

  private final boolean[] fallback = new boolean[KINDS.length * 2];
  private byte[] buffer = new byte[512];

  private TokenTemplate(
      String runId,
      String requestId,
      String model,
      Map<String, String> labels,
      String producerId,
      boolean warmup,
      String source) {
    this.runId = runId;
    this.requestId = requestId;
    this.model = model;
    this.labels = labels;
    this.producerId = producerId;
    this.warmup = warmup;
    this.source = source;
  }

  /**
   * A template for the token events of one request; {@code warmup} marks them as warm-up, {@code
   * source} is {@code producer} or {@code proxy} (null: omitted).
   */
  public static TokenTemplate of(
      String runId,
      String requestId,
      String model,
      Map<String, String> labels,
      String producerId,
      boolean warmup,
      String source) {
    return new TokenTemplate(runId, requestId, model, labels, producerId, warmup, source);
  }

  /** The event these numbers describe, as the codec would build it. */
  public TokenEvent event(
      long ts, long elapsedNs, int seq, int tokens, TokenKind kind, boolean coalesced) {
    TokenEvent e =
        TokenEvent.token(
                ts, runId, requestId, model, labels, elapsedNs, seq, tokens, kind, producerId)
            .withSource(source);
    if (warmup) {
      e = e.asWarmup();
    }
    return coalesced ? e.asCoalesced() : e;
  }

  /** The JSON of a token event: the same bytes as {@code TokenEventCodec.encode(event(...))}. */
  public byte[] encode(
      long ts, long elapsedNs, int seq, int tokens, TokenKind kind, boolean coalesced) {
    int variant = kind.ordinal() * 2 + (coalesced ? 1 : 0);
    byte[][] p = parts[variant];
    if (p == null && !fallback[variant]) {
      p = split(TokenEventCodec.encode(event(TS, ELAPSED, SEQ, TOKENS, kind, coalesced)));
      parts[variant] = p;
      fallback[variant] = p == null;
    }
    if (p == null) {
      return TokenEventCodec.encode(event(ts, elapsedNs, seq, tokens, kind, coalesced));
    }
    int need = p[0].length + p[1].length + p[2].length + p[3].length + p[4].length + 4 * 20;
    if (buffer.length < need) {
      buffer = new byte[need * 2];
    }
    int at = put(p[0], 0);
    at = digits(ts, at);
    at = put(p[1], at);
    at = digits(elapsedNs, at);
    at = put(p[2], at);
    at = digits(seq, at);
    at = put(p[3], at);
    at = digits(tokens, at);
    at = put(p[4], at);
    return Arrays.copyOf(buffer, at);
  }

  private int put(byte[] part, int at) {
    System.arraycopy(part, 0, buffer, at, part.length);
    return at + part.length;
  }

  private int digits(long value, int at) {
    if (value == 0) {
      buffer[at] = '0';
      return at + 1;
    }
    if (value == Long.MIN_VALUE) {
      return put(Long.toString(value).getBytes(StandardCharsets.US_ASCII), at);
    }
    long v = value;
    if (v < 0) {
      buffer[at++] = '-';
      v = -v;
    }
    int length = 0;
    for (long t = v; t > 0; t /= 10) {
      length++;
    }
    for (int i = at + length - 1; i >= at; i--) {
      buffer[i] = (byte) ('0' + v % 10);
      v /= 10;
    }
    return at + length;
  }

  /** The bytes around the four markers, in order, or null when a marker is not there once. */
  private static byte[][] split(byte[] json) {
    String text = new String(json, StandardCharsets.ISO_8859_1);
    String[] markers = {
      Long.toString(TS), Long.toString(ELAPSED), Integer.toString(SEQ), Integer.toString(TOKENS)
    };
    byte[][] out = new byte[5][];
    int from = 0;
    for (int m = 0; m < markers.length; m++) {
      int at = text.indexOf(markers[m]);
      if (at < from || text.indexOf(markers[m], at + 1) >= 0) {
        return null;
      }
      out[m] = Arrays.copyOfRange(json, from, at);
      from = at + markers[m].length();
    }
    out[4] = Arrays.copyOfRange(json, from, json.length);
    return out;
  }
}

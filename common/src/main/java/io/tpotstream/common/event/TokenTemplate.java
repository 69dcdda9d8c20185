package io.tpotstream.common.event;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * The token events of one request, encoded fast: exactly the bytes {@link TokenEventCodec#encode}
 * writes, without building an event per chunk. The codec stays the one definition of the format: a
 * {@link Family} (the requests of one run, model and label set) encodes a token event with marker
 * values once per variant (kind, coalesced) and keeps the bytes around them; a request's template
 * splices its id into those bytes (escaped as the codec escapes it), and each chunk then only
 * writes its four numbers into a reused buffer. Where a marker cannot be found exactly once (an id
 * that happens to contain it), it falls back to the codec. Not thread-safe: used by one thread.
 */
public final class TokenTemplate {
  private static final long TS = 1_357_913_579_135_791L;
  private static final long ELAPSED = 2_468_024_680_246_802L;
  private static final int SEQ = 1_357_924_680;
  private static final int TOKENS = 2_086_420_975;
  private static final String REQUEST_MARKER = "tpot-request-id-marker-7f3a";
  private static final TokenKind[] KINDS = TokenKind.values();
  private static final int VARIANTS = KINDS.length * 2;

  /**
   * The token events of many requests that share everything but their id: per variant, the byte
   * runs around the request id and the four numbers.
   */
  public static final class Family {
    private final String runId;
    private final String model;
    private final Map<String, String> labels;
    private final String producerId;
    private final boolean warmup;
    private final String source;

    /** Per variant: the byte runs around the request id and the numbers, or null. */
    private final Parts[] parts = new Parts[VARIANTS];

    private final boolean[] unusable = new boolean[VARIANTS];
    private byte[] buffer = new byte[512];
    private final byte[] digits = new byte[20];

    /**
     * The family of one run's token events for {@code model} and {@code labels}; {@code warmup}
     * marks them as warm-up, {@code source} is {@code producer} or {@code proxy} (null: omitted).
     */
    public Family(
        String runId,
        String model,
        Map<String, String> labels,
        String producerId,
        boolean warmup,
        String source) {
      this.runId = runId;
      this.model = model;
      this.labels = labels;
      this.producerId = producerId;
      this.warmup = warmup;
      this.source = source;
    }

    /** The template of request {@code requestId} (encodes with this family's buffers). */
    public TokenTemplate request(String requestId) {
      return new TokenTemplate(this, requestId);
    }

    private Parts parts(int variant, TokenKind kind, boolean coalesced) {
      Parts p = parts[variant];
      if (p == null && !unusable[variant]) {
        p =
            split(
                TokenEventCodec.encode(
                    event(REQUEST_MARKER, TS, ELAPSED, SEQ, TOKENS, kind, coalesced)));
        parts[variant] = p;
        unusable[variant] = p == null;
      }
      return p;
    }

    TokenEvent event(
        String requestId,
        long ts,
        long elapsedNs,
        int seq,
        int tokens,
        TokenKind kind,
        boolean coalesced) {
      TokenEvent e =
          TokenEvent.token(
                  ts, runId, requestId, model, labels, elapsedNs, seq, tokens, kind, producerId)
              .withSource(source);
      if (warmup) {
        e = e.asWarmup();
      }
      return coalesced ? e.asCoalesced() : e;
    }

    private byte[] encode(byte[] id, long ts, long elapsedNs, int seq, int tokens, Parts p) {
      int need = id.length + 4 * 20;
      for (byte[] part : p.runs) {
        need += part.length;
      }
      if (buffer.length < need) {
        buffer = new byte[need * 2];
      }
      int at = put(p.runs[0], 0);
      for (int k = 0; k < p.order.length; k++) {
        at =
            switch (p.order[k]) {
              case ID -> put(id, at);
              case TS_SLOT -> number(ts, at);
              case ELAPSED_SLOT -> number(elapsedNs, at);
              case SEQ_SLOT -> number(seq, at);
              default -> number(tokens, at);
            };
        at = put(p.runs[k + 1], at);
      }
      return Arrays.copyOf(buffer, at);
    }

    private int put(byte[] part, int at) {
      System.arraycopy(part, 0, buffer, at, part.length);
      return at + part.length;
    }

    /** Writes {@code value} in decimal at {@code at}; one division per digit. */
    private int number(long value, int at) {
      if (value < 0) {
        if (value == Long.MIN_VALUE) {
          return put(Long.toString(value).getBytes(StandardCharsets.US_ASCII), at);
        }
        buffer[at++] = '-';
        value = -value;
      }
      int n = digits.length;
      do {
        long q = value / 10;
        digits[--n] = (byte) ('0' + (value - q * 10));
        value = q;
      } while (value != 0);
      int length = digits.length - n;
      System.arraycopy(digits, n, buffer, at, length);
      return at + length;
    }
  }

  private final Family family;
  private final String requestId;
  private byte[] id;

  private TokenTemplate(Family family, String requestId) {
    this.family = family;
    this.requestId = requestId;
  }

  /** A template for the token events of one request (a family of one). */
  public static TokenTemplate of(
      String runId,
      String requestId,
      String model,
      Map<String, String> labels,
      String producerId,
      boolean warmup,
      String source) {
    return new Family(runId, model, labels, producerId, warmup, source).request(requestId);
  }

  /** The event these numbers describe, as the codec would build it. */
  public TokenEvent event(
      long ts, long elapsedNs, int seq, int tokens, TokenKind kind, boolean coalesced) {
    return family.event(requestId, ts, elapsedNs, seq, tokens, kind, coalesced);
  }

  /** The JSON of a token event: the same bytes as {@code TokenEventCodec.encode(event(...))}. */
  public byte[] encode(
      long ts, long elapsedNs, int seq, int tokens, TokenKind kind, boolean coalesced) {
    return encode(ts, elapsedNs, seq, tokens, kind, coalesced, 0);
  }

  /**
   * The same, with the client's own lag in the chunk's gap ({@code clientLagUs}, 0: none; a touched
   * chunk is rare and goes through the codec).
   */
  public byte[] encode(
      long ts,
      long elapsedNs,
      int seq,
      int tokens,
      TokenKind kind,
      boolean coalesced,
      long clientLagUs) {
    Parts p = family.parts(kind.ordinal() * 2 + (coalesced ? 1 : 0), kind, coalesced);
    if (clientLagUs > 0) {
      return TokenEventCodec.encode(
          event(ts, elapsedNs, seq, tokens, kind, coalesced).withClientLag(clientLagUs));
    }
    if (p == null || requestId.contains(REQUEST_MARKER)) {
      return TokenEventCodec.encode(event(ts, elapsedNs, seq, tokens, kind, coalesced));
    }
    if (id == null) {
      id = JsonStringEncoder.getInstance().quoteAsUTF8(requestId);
    }
    return family.encode(id, ts, elapsedNs, seq, tokens, p);
  }

  /** What a slot between two byte runs holds. */
  private static final int ID = 0;

  private static final int TS_SLOT = 1;
  private static final int ELAPSED_SLOT = 2;
  private static final int SEQ_SLOT = 3;
  private static final int TOKENS_SLOT = 4;

  /** Byte runs with a value between each two: {@code runs[k]}, value {@code order[k]}, ... */
  private record Parts(byte[][] runs, int[] order) {}

  /**
   * The bytes around the request-id marker and the four number markers, in the codec's order, or
   * null when a marker is not there exactly once.
   */
  private static Parts split(byte[] json) {
    String text = new String(json, StandardCharsets.ISO_8859_1);
    String[] markers = new String[5];
    markers[ID] = REQUEST_MARKER;
    markers[TS_SLOT] = Long.toString(TS);
    markers[ELAPSED_SLOT] = Long.toString(ELAPSED);
    markers[SEQ_SLOT] = Integer.toString(SEQ);
    markers[TOKENS_SLOT] = Integer.toString(TOKENS);
    Integer[] order = {ID, TS_SLOT, ELAPSED_SLOT, SEQ_SLOT, TOKENS_SLOT};
    int[] at = new int[markers.length];
    for (int m = 0; m < markers.length; m++) {
      at[m] = text.indexOf(markers[m]);
      if (at[m] < 0 || text.indexOf(markers[m], at[m] + 1) >= 0) {
        return null;
      }
    }
    Arrays.sort(order, (a, b) -> Integer.compare(at[a], at[b]));
    byte[][] runs = new byte[markers.length + 1][];
    int from = 0;
    for (int k = 0; k < order.length; k++) {
      int m = order[k];
      if (at[m] < from) {
        return null;
      }
      runs[k] = Arrays.copyOfRange(json, from, at[m]);
      from = at[m] + markers[m].length();
    }
    runs[markers.length] = Arrays.copyOfRange(json, from, json.length);
    return new Parts(runs, Arrays.stream(order).mapToInt(Integer::intValue).toArray());
  }
}

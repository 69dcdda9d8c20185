package io.tpotstream.bench.jmh;

import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.event.TokenEventDecoder;
import io.tpotstream.common.event.TokenKind;
import io.tpotstream.common.event.TokenTemplate;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;

/**
 * A token event to JSON bytes and back (data binding, and the aggregator's streaming decoder, once
 * per record), with the labels a producer run puts on every event; and the producer's per-chunk way
 * to the same bytes, its request's template.
 */
public class TokenEventCodecBenchmark extends JmhDefaults {
  private final TokenEventDecoder decoder = new TokenEventDecoder();
  private TokenEvent event;
  private byte[] json;
  private byte[] key;
  private byte[] spaced;
  private TokenTemplate template;
  private long elapsedNs;

  @Setup
  public void setUp() {
    event =
        TokenEvent.token(
            1_767_225_600_123L,
            "run-20260101-120000-ab12",
            "run-20260101-120000-ab12-4711",
            "model-a",
            Map.of("concurrency", "10", "target", "gateway"),
            812_345_678L,
            41,
            1,
            TokenKind.CONTENT,
            "host-1234-ab12");
    json = TokenEventCodec.encode(event);
    key = event.requestId().getBytes(StandardCharsets.UTF_8);
    spaced =
        ("{ " + new String(json, StandardCharsets.UTF_8).substring(1))
            .getBytes(StandardCharsets.UTF_8);
    template =
        new TokenTemplate.Family(
                "run-20260101-120000-ab12",
                "model-a",
                Map.of("concurrency", "10", "target", "gateway"),
                "host-1234-ab12",
                false,
                "producer")
            .request("run-20260101-120000-ab12-4711");
  }

  /** The producer's per-chunk encoding: the codec's bytes from the request's template. */
  @Benchmark
  public byte[] encodeWithTemplate() {
    elapsedNs += 20_000_000;
    return template.encode(1_767_225_600_123L, elapsedNs, 41, 1, TokenKind.CONTENT, false);
  }

  @Benchmark
  public byte[] encodeTokenEvent() {
    return TokenEventCodec.encode(event);
  }

  @Benchmark
  public TokenEvent decodeTokenEvent() {
    return TokenEventCodec.decode(json);
  }

  /** What the aggregator does per record: the compact scanner, request id from the key. */
  @Benchmark
  public long decodeStreaming() {
    return decoder.decode(key, json).elapsedNs();
  }

  /** The same event with one space in it: read by the reference codec instead. */
  @Benchmark
  public long decodeStreamingNotCompact() {
    return decoder.decode(key, spaced).elapsedNs();
  }
}

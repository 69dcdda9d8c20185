package io.tpotstream.producer;

import io.tpotstream.common.Json;
import io.tpotstream.common.event.TokenKind;
import io.tpotstream.common.event.TokenTemplate;
import io.tpotstream.producer.config.ApiKind;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.dialect.Dialect;
import io.tpotstream.producer.dialect.StreamReader;
import io.tpotstream.producer.sse.SseFields;
import io.tpotstream.producer.sse.SseFramer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Before the first request, runs the per-chunk code that is plain Java (SSE framing, reading the
 * fields, the dialect's JSON reader, encoding a token event) over a synthetic stream twenty
 * thousand times, so that the JIT has compiled it before it measures anything. The HTTP path and
 * Kafka are warmed by the run's own warm-up requests (see {@link
 * io.tpotstream.producer.config.Warmup}), which this does not replace. Takes about 0.3 s (more on a
 * busy machine), once per JVM.
 */
final class JitPrimer {
  private static final int CHUNKS = 20_000;
  private static final String OPENAI =
      "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,"
          + "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" word\"},"
          + "\"logprobs\":null,\"finish_reason\":null}]}\n\n";
  private static final String ANTHROPIC =
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
          + "\"delta\":{\"type\":\"text_delta\",\"text\":\" word\"}}\n\n";
  private static volatile long sink;
  private static final java.util.concurrent.atomic.AtomicBoolean PRIMED =
      new java.util.concurrent.atomic.AtomicBoolean();

  private JitPrimer() {}

  /** Primes once per JVM (later runs find the code compiled); checks the request body always. */
  static void run(ProducerConfig config) {
    Dialect dialect = Dialect.of(config.api());
    try {
      Json.MAPPER.writeValueAsBytes(
          dialect.requestBody(config.models().get(0), config.prompts().messages(0), config));
    } catch (Exception e) {
      throw new IllegalStateException("cannot encode a request body", e);
    }
    if (PRIMED.getAndSet(true)) {
      return;
    }
    byte[] chunk =
        (config.api() == ApiKind.ANTHROPIC ? ANTHROPIC : OPENAI).getBytes(StandardCharsets.UTF_8);
    StreamReader reader = dialect.newReader();
    SseFields fields = new SseFields();
    TokenTemplate template =
        TokenTemplate.of("primer", "primer-0", "m", Map.of("concurrency", "1"), "p", false, "p");
    long[] total = {0};
    SseFramer framer =
        new SseFramer(
            (bytes, offset, length, terminal, readNs, read) -> {
              if (fields.read(bytes, offset, length)) {
                reader.read(
                    fields.event(), fields.data(), fields.dataOffset(), fields.dataLength());
                total[0] +=
                    template.encode(1L + length, length, offset, 1, TokenKind.CONTENT, terminal)
                        .length;
              }
            });
    for (int i = 0; i < CHUNKS; i++) {
      framer.feed(chunk, 0, chunk.length, i, i);
    }
    sink = total[0];
  }
}

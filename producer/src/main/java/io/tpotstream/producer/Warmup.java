package io.tpotstream.producer;

import io.tpotstream.common.Json;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.event.TokenKind;
import io.tpotstream.producer.config.ApiKind;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.dialect.Dialect;
import io.tpotstream.producer.dialect.StreamReader;
import io.tpotstream.producer.sse.SseParser;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Runs the parsing and encoding code once before the first request, so that class loading and
 * first-call costs do not land in the first requests' measured TTFT and gaps.
 */
final class Warmup {
  private static final String SAMPLE =
      "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":null}],"
          + "\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}\n\n"
          + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\","
          + "\"delta\":{\"type\":\"text_delta\",\"text\":\"a\"}}\n\ndata: [DONE]\n\n";

  private Warmup() {}

  static void run(ProducerConfig config) {
    Dialect dialect = Dialect.of(config.api());
    try {
      Json.MAPPER.writeValueAsBytes(
          dialect.requestBody(config.models().get(0), config.prompts().messages(0), config));
    } catch (Exception e) {
      throw new IllegalStateException("cannot encode a request body", e);
    }
    for (Dialect d : new Dialect[] {dialect, Dialect.of(ApiKind.OPENAI)}) {
      StreamReader reader = d.newReader();
      new SseParser(reader::read).feed(SAMPLE.getBytes(StandardCharsets.UTF_8), System.nanoTime());
    }
    TokenEventCodec.encode(
        TokenEvent.token(
            1, "warmup", "warmup", "m", Map.of("a", "b"), 1, 0, 1, TokenKind.CONTENT, "p"));
  }
}

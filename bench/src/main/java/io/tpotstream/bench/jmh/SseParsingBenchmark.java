package io.tpotstream.bench.jmh;

import io.tpotstream.producer.config.ApiKind;
import io.tpotstream.producer.dialect.Chunk;
import io.tpotstream.producer.dialect.Dialect;
import io.tpotstream.producer.dialect.StreamReader;
import io.tpotstream.producer.sse.SseParser;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The producer's per-chunk work on a response: SSE framing, then the OpenAI dialect reading each
 * chunk's JSON. One operation is one chunk of a 256-chunk OpenAI stream, fed one network read per
 * chunk as it arrives.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SseParsingBenchmark {
  static final int CHUNKS = 256;

  private List<byte[]> reads;

  @Setup
  public void setUp() {
    reads = openAiStream(CHUNKS);
  }

  /** A response as the simulator (and vLLM) sends it: role chunk, tokens, finish, usage, DONE. */
  static List<byte[]> openAiStream(int chunks) {
    String prefix =
        "data: {\"id\":\"chatcmpl-run-1-42\",\"object\":\"chat.completion.chunk\","
            + "\"created\":1767225600,\"model\":\"model-a\",\"system_fingerprint\":null,"
            + "\"choices\":[";
    List<byte[]> out = new ArrayList<>();
    out.add(
        bytes(
            prefix
                + "{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
                + "\"logprobs\":null,\"finish_reason\":null}]}\n\n"));
    for (int i = 0; i < chunks; i++) {
      out.add(
          bytes(
              prefix
                  + "{\"index\":0,\"delta\":{\"content\":\" word"
                  + (i % 97)
                  + "\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n"));
    }
    out.add(
        bytes(
            prefix
                + "{\"index\":0,\"delta\":{},\"logprobs\":null,\"finish_reason\":\"length\"}]}\n\n"
                + prefix
                + "],\"usage\":{\"prompt_tokens\":21,\"completion_tokens\":"
                + chunks
                + ",\"total_tokens\":"
                + (chunks + 21)
                + "}}\n\ndata: [DONE]\n\n"));
    return out;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** SSE framing only: lines and events, no JSON. */
  @Benchmark
  @OperationsPerInvocation(CHUNKS)
  public void sseFramingPerChunk(Blackhole bh) {
    SseParser parser = new SseParser(bh::consume);
    long now = 0;
    for (byte[] read : reads) {
      parser.feed(read, now++);
    }
  }

  /** Framing plus the OpenAI dialect's reading of each chunk (JSON parse, token or not). */
  @Benchmark
  @OperationsPerInvocation(CHUNKS)
  public void sseAndOpenAiChunkPerChunk(Blackhole bh) {
    StreamReader reader = Dialect.of(ApiKind.OPENAI).newReader();
    SseParser parser =
        new SseParser(
            event -> {
              Chunk chunk = reader.read(event);
              bh.consume(chunk);
            });
    long now = 0;
    for (byte[] read : reads) {
      parser.feed(read, now++);
    }
  }
}

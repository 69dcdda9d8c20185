package io.tpotstream.bench.jmh;

import io.tpotstream.producer.config.ApiKind;
import io.tpotstream.producer.dialect.Dialect;
import io.tpotstream.producer.dialect.StreamReader;
import io.tpotstream.producer.sse.SseFields;
import io.tpotstream.producer.sse.SseFramer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The producer's per-chunk work on a response, in its two halves: on the event loop, finding the
 * SSE events in the bytes; on the publisher thread, reading each event's fields and JSON. One
 * operation is one chunk of a 256-chunk OpenAI stream, fed one network read per chunk as it
 * arrives.
 */
public class SseParsingBenchmark extends JmhDefaults {
  static final int CHUNKS = 256;

  private List<byte[]> reads;
  private List<byte[]> events;
  private final SseFields fields = new SseFields();

  @Setup
  public void setUp() {
    reads = openAiStream(CHUNKS);
    events = new ArrayList<>();
    SseFramer framer =
        new SseFramer(
            (bytes, offset, length, terminal, readNs, read) ->
                events.add(java.util.Arrays.copyOfRange(bytes, offset, offset + length)));
    for (int i = 0; i < reads.size(); i++) {
      byte[] bytes = reads.get(i);
      framer.feed(bytes, 0, bytes.length, i, i);
    }
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

  /**
   * The event loop's share: finding the SSE events in each read and copying each into a reused
   * array (as the hand-off does), no JSON.
   */
  @Benchmark
  @OperationsPerInvocation(CHUNKS)
  public void loopFramingPerChunk(Blackhole bh) {
    byte[] slot = new byte[1024];
    SseFramer framer =
        new SseFramer(
            (bytes, offset, length, terminal, readNs, read) -> {
              System.arraycopy(bytes, offset, slot, 0, Math.min(length, slot.length));
              bh.consume(terminal);
            });
    for (int i = 0; i < reads.size(); i++) {
      byte[] bytes = reads.get(i);
      framer.feed(bytes, 0, bytes.length, i, i);
    }
  }

  /**
   * The publisher thread's share: the fields of each event and the OpenAI dialect's reading of its
   * JSON (Jackson's streaming parser, reused), token or not.
   */
  @Benchmark
  @OperationsPerInvocation(CHUNKS)
  public void publisherReadPerChunk(Blackhole bh) {
    StreamReader reader = Dialect.of(ApiKind.OPENAI).newReader();
    for (byte[] event : events) {
      if (fields.read(event, 0, event.length)) {
        bh.consume(
            reader.read(fields.event(), fields.data(), fields.dataOffset(), fields.dataLength()));
      }
    }
  }
}

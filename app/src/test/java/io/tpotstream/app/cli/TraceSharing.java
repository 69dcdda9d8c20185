package io.tpotstream.app.cli;

import io.tpotstream.producer.workload.TraceFormat;
import io.tpotstream.producer.workload.TraceReader;
import io.tpotstream.producer.workload.TraceRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * What a trace's {@code hash_ids} imply for a server's prefix cache when it is replayed: the prompt
 * tokens each request shares with a request that arrived before it, as the replay's prompts are
 * written ({@code TracePrompts}: block i is the text of hash id i, the last block cut at the input
 * length, the text past the ids the request's own) and as the simulator caches them (whole blocks
 * of its {@code prefixBlockTokens}, inserted when a request arrives, none evicted).
 */
final class TraceSharing {
  private TraceSharing() {}

  /** The requests of {@code trace}, read by the replay's own reader. */
  static List<TraceRequest> read(Path trace) {
    List<TraceRequest> lines = new ArrayList<>();
    String where = trace.getFileName().toString();
    try (TraceReader reader = TraceFormat.detect(trace, where).open(trace, where)) {
      TraceRequest line;
      while ((line = reader.next()) != null) {
        lines.add(line);
      }
    }
    return lines;
  }

  /**
   * The cached tokens of each of {@code lines} (by its index) when they arrive in {@code
   * arrivalOrder} at a cache of blocks of {@code cacheBlockTokens}: the longest prefix it shares
   * with an earlier arrival, in whole cache blocks.
   */
  static int[] cachedTokens(
      List<TraceRequest> lines, List<Integer> arrivalOrder, int cacheBlockTokens) {
    int[] cached = new int[lines.size()];
    List<TraceRequest> arrived = new ArrayList<>();
    for (int n : arrivalOrder) {
      TraceRequest request = lines.get(n);
      long shared = 0;
      for (TraceRequest earlier : arrived) {
        shared = Math.max(shared, sharedPrefixTokens(earlier, request));
      }
      cached[n] = (int) (shared / cacheBlockTokens * cacheBlockTokens);
      arrived.add(request);
    }
    return cached;
  }

  /** {@link #cachedTokens} for requests that arrive in the trace's order. */
  static int[] cachedTokens(List<TraceRequest> lines, int cacheBlockTokens) {
    return cachedTokens(lines, inOrder(lines.size()), cacheBlockTokens);
  }

  /** 0 to {@code count} − 1: the trace's own order. */
  static List<Integer> inOrder(int count) {
    return IntStream.range(0, count).boxed().toList();
  }

  /**
   * The leading tokens two prompts of a trace have in common: block by block while their ids are
   * equal, each block's tokens the shorter of the two (the last block of a prompt may be cut),
   * ending at the first cut block; past the ids nothing is shared.
   */
  static long sharedPrefixTokens(TraceRequest a, TraceRequest b) {
    long[] idsA = a.hashIds();
    long[] idsB = b.hashIds();
    int blockSize = a.blockSize();
    long shared = 0;
    for (int i = 0; i < idsA.length && i < idsB.length && idsA[i] == idsB[i]; i++) {
      long inA = Math.min(blockSize, a.inputTokens() - (long) i * blockSize);
      long inB = Math.min(blockSize, b.inputTokens() - (long) i * blockSize);
      shared += Math.min(inA, inB);
      if (inA < blockSize || inB < blockSize) {
        break;
      }
    }
    return shared;
  }
}

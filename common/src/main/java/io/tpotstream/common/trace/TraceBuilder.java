package io.tpotstream.common.trace;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.tpotstream.common.Json;
import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.request.RequestRecord;
import io.tpotstream.common.request.RequestRecords;
import io.tpotstream.common.request.RequestTrace;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;

/**
 * A trace in tpot's format ({@link TraceLine}) from token events in log order ({@code tpot trace}):
 * one line per request that has a {@code start} event, in start order, written as soon as it and
 * every request that started before it have ended. Each request is followed by the statistics' own
 * rules ({@link RequestRecords.Follower}: output tokens are the reported completion tokens, else
 * the tokens in chunks; warm-up requests left out). The prompt tokens come from the end event's
 * usage; the start event's {@code prefixHashes} ({@code tpot proxy --capture-prefix-hashes}) become
 * {@code hash_ids} renumbered densely (0, 1, 2, … in order of first appearance), so the trace
 * carries no hash value, and cut to the blocks of its input length (a Mooncake line has one id per
 * block of its input). Not thread-safe.
 */
public final class TraceBuilder {
  private static final ObjectWriter WRITER = Json.MAPPER.writerFor(TraceLine.class);

  /**
   * Which requests to write.
   *
   * @param models only these models (empty: all)
   * @param labels only requests carrying every one of these labels with this value (empty: all)
   * @param completedOnly leave out requests that failed or did not end within the input
   */
  public record Filter(Set<String> models, Map<String, String> labels, boolean completedOnly) {
    public Filter {
      models = Set.copyOf(models);
      labels = Map.copyOf(labels);
    }

    /** Every request, failed and unfinished ones included. */
    public static final Filter ALL = new Filter(Set.of(), Map.of(), false);

    boolean matches(TokenEvent e) {
      if (!models.isEmpty() && !models.contains(e.model())) {
        return false;
      }
      for (Map.Entry<String, String> label : labels.entrySet()) {
        SortedMap<String, String> has = e.labels();
        if (has == null || !label.getValue().equals(has.get(label.getKey()))) {
          return false;
        }
      }
      return true;
    }
  }

  /**
   * What was written.
   *
   * @param lines requests written
   * @param completed of those, the ones that ended complete
   * @param failed of those, the ones that failed (with the output they got)
   * @param unfinished of those, the ones whose end the input did not hold (output so far)
   * @param leftOut requests that failed or did not end, left out by {@code completedOnly}
   * @param withoutStart requests whose start the input did not hold (it began after it): left out
   * @param withoutInputLength lines without {@code input_length}: no prompt tokens reported
   * @param withHashIds lines with {@code hash_ids}
   * @param hashIdsCutToInput lines whose prompt had more blocks than its input length has blocks of
   *     {@link TraceLine#BLOCK_SIZE_TOKENS} tokens (the proxy's blocks are bytes), cut to those
   * @param promptsPastHashBound lines whose prompt had more blocks than its start event carried
   *     hashes of (the bound of the event), so that only its leading ones have ids
   * @param distinctBlocks distinct hash ids in the trace
   * @param firstStartMs the first request's start (epoch ms, the trace's 0), or null
   */
  public record Counts(
      long lines,
      long completed,
      long failed,
      long unfinished,
      long leftOut,
      long withoutStart,
      long withoutInputLength,
      long withHashIds,
      long hashIdsCutToInput,
      long promptsPastHashBound,
      long distinctBlocks,
      Long firstStartMs) {}

  /** A request whose start was seen, until its line is written. */
  private static final class Started {
    final List<Long> prefixHashes;
    final Integer prefixBlocks;
    Integer promptTokens;
    RequestRecord record;

    Started(TokenEvent start) {
      prefixHashes = start.prefixHashes() == null ? List.of() : start.prefixHashes();
      prefixBlocks = start.prefixBlocks();
    }
  }

  private final Filter filter;
  private final Writer out;
  private final RequestRecords.Follower follower =
      new RequestRecords.Follower(null, this::finished);
  private final Map<String, Started> open = new HashMap<>();
  private final ArrayDeque<Started> inStartOrder = new ArrayDeque<>();
  private final Map<Long, Long> denseIds = new HashMap<>();
  private Long firstStartMs;
  private long lines;
  private long completed;
  private long failed;
  private long unfinished;
  private long leftOut;
  private long withoutStart;
  private long withoutInputLength;
  private long withHashIds;
  private long hashIdsCutToInput;
  private long promptsPastHashBound;

  /** Writes the lines to {@code out} (one JSON object and a newline each). */
  public TraceBuilder(Filter filter, Writer out) {
    this.filter = filter;
    this.out = out;
  }

  /**
   * Takes the next event in log order (heartbeats, warm-up and filtered-out events are skipped).
   */
  public void accept(TokenEvent e) throws IOException {
    if (e.type() == EventType.HEARTBEAT
        || e.requestId() == null
        || e.inWarmup()
        || !filter.matches(e)) {
      return;
    }
    if (e.type() == EventType.START && !open.containsKey(e.requestId())) {
      Started started = new Started(e);
      open.put(e.requestId(), started);
      inStartOrder.add(started);
    } else if (e.type() == EventType.END) {
      Started started = open.get(e.requestId());
      if (started != null) {
        started.promptTokens = e.promptTokens();
      }
    }
    follower.accept(e);
    writeReady();
  }

  /** The input ended: requests still open are written as they are; returns what was written. */
  public Counts finish() throws IOException {
    follower.finish();
    writeReady();
    out.flush();
    return new Counts(
        lines,
        completed,
        failed,
        unfinished,
        leftOut,
        withoutStart,
        withoutInputLength,
        withHashIds,
        hashIdsCutToInput,
        promptsPastHashBound,
        denseIds.size(),
        firstStartMs);
  }

  /** The follower's word that a request is over (its end, its error, or the input's end). */
  private void finished(RequestTrace trace, RequestRecord record) {
    Started started = open.remove(record.requestId());
    if (started == null || record.startMs() == null) {
      withoutStart++;
      return;
    }
    started.record = record;
  }

  /** Writes the lines of the requests that ended, up to the first that started and did not. */
  private void writeReady() throws IOException {
    while (!inStartOrder.isEmpty() && inStartOrder.peekFirst().record != null) {
      Started s = inStartOrder.pollFirst();
      RequestRecord r = s.record;
      boolean complete = r.outcome().equals(RequestRecord.COMPLETED);
      if (filter.completedOnly() && !complete) {
        leftOut++;
        continue;
      }
      write(s, r);
    }
  }

  private void write(Started s, RequestRecord r) throws IOException {
    if (firstStartMs == null) {
      firstStartMs = r.startMs();
    }
    switch (r.outcome()) {
      case RequestRecord.COMPLETED -> completed++;
      case RequestRecord.FAILED -> failed++;
      default -> unfinished++;
    }
    List<Long> hashes = s.prefixHashes;
    if (s.prefixBlocks != null && s.prefixBlocks > hashes.size()) {
      promptsPastHashBound++;
    }
    if (s.promptTokens == null) {
      withoutInputLength++;
    } else {
      long blocks =
          ((long) s.promptTokens + TraceLine.BLOCK_SIZE_TOKENS - 1) / TraceLine.BLOCK_SIZE_TOKENS;
      if (hashes.size() > blocks) {
        hashes = hashes.subList(0, (int) blocks);
        hashIdsCutToInput++;
      }
    }
    List<Long> ids = new ArrayList<>(hashes.size());
    for (Long hash : hashes) {
      ids.add(denseIds.computeIfAbsent(hash, h -> (long) denseIds.size()));
    }
    if (!ids.isEmpty()) {
      withHashIds++;
    }
    TraceLine line =
        new TraceLine(
            r.startMs() - firstStartMs,
            s.promptTokens,
            r.outputTokens(),
            ids,
            TraceLine.BLOCK_SIZE_TOKENS,
            r.model(),
            r.labels());
    try {
      out.write(WRITER.writeValueAsString(line));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("cannot encode a trace line", e);
    }
    out.write('\n');
    lines++;
  }
}

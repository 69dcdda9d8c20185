package io.tpotstream.aggregator;

import io.tpotstream.aggregator.stage1.PartitionStage;
import io.tpotstream.aggregator.stage1.Stage1Output;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.aggregator.stage2.MergeOutput;
import io.tpotstream.aggregator.stage2.WindowMerger;
import io.tpotstream.aggregator.state.MapState;
import io.tpotstream.common.event.DecodedEvent;
import io.tpotstream.common.event.ErrorClasses;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.event.TokenEventDecoder;
import io.tpotstream.common.event.TokenKind;
import io.tpotstream.common.event.TokenTemplate;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Runs the per-record path (decoder, stage 1, stage 2, the commit writes) over made-up events on a
 * thread of its own while Kafka Streams starts (seconds of group joins and topic creation), so that
 * the JIT has compiled it before the first real record: the first windows then come out at full
 * speed. Touches no state of the aggregator.
 */
final class JitPrimer {
  private static final long T0 = 1_700_000_000_000L;
  private static final int REQUESTS = 400;
  private static final int CHUNKS = 40;
  private static final int ROUNDS = 4;
  private static final String SOURCE = "producer";

  private JitPrimer() {}

  /**
   * Starts the primer (a daemon thread; it ends by itself within a second or two), unless {@code
   * -Dtpot.aggregator.primer=false}.
   */
  static void start() {
    if (!Boolean.parseBoolean(System.getProperty("tpot.aggregator.primer", "true"))) {
      return;
    }
    Thread t = new Thread(JitPrimer::run, "aggregator-jit-primer");
    t.setDaemon(true);
    t.setPriority(Thread.MIN_PRIORITY);
    t.start();
  }

  static void run() {
    List<Keyed> events = events();
    TokenEventDecoder decoder = new TokenEventDecoder();
    StageSettings settings = StageSettings.defaults();
    for (int round = 0; round < ROUNDS; round++) {
      PartitionStage stage = new PartitionStage(settings);
      WindowMerger merger = new WindowMerger(1, settings.windowMs(), 1_000);
      merger.open("primer");
      MergeOutput merged = (summary, json) -> {};
      Stage1Output out = merger.input(0, merged, null);
      MapState state = new MapState();
      for (int i = 0; i < events.size(); i++) {
        Keyed e = events.get(i);
        DecodedEvent event = decoder.decode(e.key(), e.value());
        stage.onEvent(event, event.ts(), out);
        if (i % 2_000 == 0) {
          stage.writeChanges(state);
        }
      }
    }
  }

  /** A key and a value as a producer writes them, at a time. */
  record Keyed(long ts, byte[] key, byte[] value) {}

  /**
   * Made-up traffic with every event type and field a producer writes, encoded as it encodes them
   * (token events through {@link TokenTemplate}), interleaved by time as many requests in flight
   * are: a primer that only ever showed the JIT one shape of event had its compiled decoder and
   * stage thrown away at the first real record of another shape (an error, a heartbeat with its
   * client figures, a label set more), and compiled again while the first windows were read.
   */
  static List<Keyed> events() {
    Random random = new Random(42);
    String runId = "run-20260101-000000-primer";
    String producer = "tpot-primer-0000-0000";
    List<Keyed> events = new ArrayList<>();
    for (int r = 0; r < REQUESTS; r++) {
      String id = runId + "-" + r;
      String model = "primer-model-" + r % 5;
      Map<String, String> labels =
          switch (r % 3) {
            case 0 -> Map.of("concurrency", "256");
            case 1 -> Map.of("concurrency", "8", "target", "primer");
            default -> Map.of();
          };
      boolean warmup = r % 40 == 0;
      long ts = T0 + r * 25L;
      Long scheduleLagNs = r % 2 == 0 ? null : (long) random.nextInt(5_000_000);
      TokenEvent start =
          TokenEvent.start(ts, runId, id, model, labels, scheduleLagNs, producer)
              .withSource(SOURCE);
      add(events, id, warmup ? start.asWarmup() : start);
      TokenTemplate template = TokenTemplate.of(runId, id, model, labels, producer, warmup, SOURCE);
      int chunks = 8 + r % CHUNKS;
      long elapsedNs = 150_000_000L + random.nextInt(400_000_000);
      for (int k = 0; k < chunks; k++) {
        elapsedNs += 2_000_000L + random.nextInt(60_000_000);
        TokenKind kind = r % 4 == 0 && k < chunks / 5 ? TokenKind.REASONING : TokenKind.CONTENT;
        int tokens = k % 17 == 16 ? 2 : 1;
        long at = ts + elapsedNs / 1_000_000;
        long lagUs = k % 29 == 28 ? 1_000 + random.nextInt(9_000) : 0;
        events.add(
            new Keyed(
                at, utf8(id), template.encode(at, elapsedNs, k, tokens, kind, tokens > 1, lagUs)));
      }
      elapsedNs += 1_000_000L;
      long at = ts + elapsedNs / 1_000_000;
      TokenEvent last =
          r % 25 == 7
              ? TokenEvent.error(
                  at,
                  runId,
                  id,
                  model,
                  labels,
                  elapsedNs,
                  chunks,
                  ErrorClasses.KNOWN.get(r % ErrorClasses.KNOWN.size()),
                  r % 2 == 0 ? 503 : null,
                  "primer",
                  null,
                  producer)
              : TokenEvent.end(
                  at,
                  runId,
                  id,
                  model,
                  labels,
                  elapsedNs,
                  chunks,
                  20 + r % 300,
                  chunks,
                  r % 10 == 0 ? "length" : "stop",
                  r % 30 == 0 ? 1 : null,
                  producer);
      last = last.withSource(SOURCE);
      add(events, id, warmup ? last.asWarmup() : last);
    }
    long endMs = events.stream().mapToLong(Keyed::ts).max().orElse(T0);
    for (long at = T0; at < endMs; at += 1_000) {
      add(
          events,
          producer,
          TokenEvent.heartbeat(
                  at,
                  runId,
                  producer,
                  at - 200,
                  false,
                  (long) random.nextInt(2_000),
                  (long) random.nextInt(2_000),
                  at % 3_000 == 0 ? (long) random.nextInt(5) : null)
              .withSource(SOURCE));
    }
    add(
        events,
        producer,
        TokenEvent.heartbeat(endMs + 1, runId, producer, endMs + 1, true, 100L, 100L, null)
            .withSource(SOURCE));
    events.sort(Comparator.comparingLong(Keyed::ts));
    return events;
  }

  private static void add(List<Keyed> events, String key, TokenEvent e) {
    events.add(new Keyed(e.ts(), utf8(key), TokenEventCodec.encode(e)));
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}

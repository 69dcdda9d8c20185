package io.tpotstream.aggregator;

import io.tpotstream.aggregator.stage1.PartitionStage;
import io.tpotstream.aggregator.stage1.Stage1Output;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.aggregator.stage2.MergeOutput;
import io.tpotstream.aggregator.stage2.WindowMerger;
import io.tpotstream.aggregator.state.MapState;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.event.TokenEventDecoder;
import io.tpotstream.common.event.TokenKind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
    List<byte[]> keys = new ArrayList<>();
    List<byte[]> values = new ArrayList<>();
    Map<String, String> labels = Map.of("concurrency", "10");
    for (int r = 0; r < REQUESTS; r++) {
      String id = "primer-" + r;
      long ts = T0 + r * 10L;
      add(
          keys,
          values,
          id,
          TokenEvent.start(ts, "primer", id, "model-" + r % 4, labels, null, "p"));
      for (int k = 0; k < CHUNKS; k++) {
        add(
            keys,
            values,
            id,
            TokenEvent.token(
                ts + 20 + k,
                "primer",
                id,
                "model-" + r % 4,
                labels,
                20_000_000L + k * 1_000_000L,
                k,
                1,
                TokenKind.CONTENT,
                "p"));
      }
      add(
          keys,
          values,
          id,
          TokenEvent.end(
              ts + 30 + CHUNKS,
              "primer",
              id,
              "model-" + r % 4,
              labels,
              99_000_000L,
              CHUNKS,
              10,
              CHUNKS,
              "stop",
              null,
              "p"));
      if (r % 50 == 0) {
        add(keys, values, "p", TokenEvent.heartbeat(ts, "primer", "p", ts - 200, false, 100L));
      }
    }
    add(
        keys,
        values,
        "p",
        TokenEvent.heartbeat(T0 + 60_000, "primer", "p", T0 + 60_000, true, null));
    TokenEventDecoder decoder = new TokenEventDecoder();
    StageSettings settings = StageSettings.defaults();
    for (int round = 0; round < ROUNDS; round++) {
      PartitionStage stage = new PartitionStage(settings);
      WindowMerger merger = new WindowMerger(1, settings.windowMs(), 1_000);
      merger.open("primer");
      MergeOutput merged = (summary, json) -> {};
      Stage1Output out = merger.input(0, merged, null);
      MapState state = new MapState();
      for (int i = 0; i < keys.size(); i++) {
        stage.onEvent(decoder.decode(keys.get(i), values.get(i)), out);
        if (i % 2_000 == 0) {
          stage.writeChanges(state);
        }
      }
    }
  }

  private static void add(List<byte[]> keys, List<byte[]> values, String key, TokenEvent e) {
    keys.add(key.getBytes(StandardCharsets.UTF_8));
    values.add(TokenEventCodec.encode(e));
  }
}

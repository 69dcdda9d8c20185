package io.tpotstream.aggregator.golden;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.aggregator.fixtures.Req;
import io.tpotstream.aggregator.fixtures.Scrapes;
import io.tpotstream.aggregator.offline.OfflineStats;
import io.tpotstream.aggregator.partial.SeriesName;
import io.tpotstream.aggregator.partial.WindowCounts;
import io.tpotstream.aggregator.stage1.PartitionStage;
import io.tpotstream.aggregator.stage1.Stage1Output;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.aggregator.stage2.MergeOutput;
import io.tpotstream.aggregator.stage2.WindowMerger;
import io.tpotstream.aggregator.state.ByteState;
import io.tpotstream.aggregator.state.MapState;
import io.tpotstream.common.event.DecodedEvent;
import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.event.TokenEventDecoder;
import io.tpotstream.common.summary.WindowSummaryCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BiConsumer;
import org.apache.kafka.common.utils.Bytes;
import org.junit.jupiter.api.Test;

/**
 * The working sets as Kafka Streams treats them under exactly-once: written to their stores at
 * every commit, and after a crash rebuilt from the stores while the input is read again from the
 * last commit. Whatever the commit and crash points, the committed summaries are the recorded ones.
 */
class WorkingSetRestoreTest {
  @Test
  void crashesBetweenCommitsChangeNoSummary() throws Exception {
    for (GoldenEvents.Case c : GoldenEvents.cases()) {
      List<String> expected = GoldenSummariesTest.read(c.name());
      int seeds = c.events().size() > 20_000 ? 1 : 3;
      for (long seed = 1; seed <= seeds; seed++) {
        Run run = new Run(c.settings());
        List<String> committed = run.withCrashes(c.events(), new Random(seed));
        assertEquals(expected, committed, c.name() + ", seed " + seed);
        assertTrue(run.crashes > 2, c.name() + ": " + run.crashes + " crashes");
      }
    }
  }

  /**
   * The engine's sums in the working sets (stage 1's open windows, stage 2's merged partials) are
   * written and restored as the rest: the edge cases with an engine scraped every third heartbeat
   * give the summaries of one uninterrupted pass, whatever the crashes.
   */
  @Test
  void theEnginesSumsSurviveCrashesBetweenCommits() {
    List<TokenEvent> events = new ArrayList<>();
    int n = 0;
    for (TokenEvent e : GoldenEvents.edges()) {
      events.add(e);
      if (e.type() == EventType.HEARTBEAT && "p1".equals(e.producerId()) && n++ % 3 == 0) {
        events.add(
            Scrapes.scrape(
                e.ts(),
                "model-" + (n % 3),
                Map.of("concurrency", "0"),
                "p1",
                Scrapes.histogram(List.of(10_000L, 25_000L), 1L, (long) n, 0L),
                null,
                (double) n,
                n / 200.0,
                1_000L,
                (long) n));
      }
    }
    StageSettings settings = StageSettings.defaults().withRequestTimeout(Duration.ofSeconds(30));
    List<String> expected =
        OfflineStats.compute(
                events,
                settings,
                p -> {
                  throw new AssertionError(p);
                })
            .stream()
            .map(WindowSummaryCodec::encodeToString)
            .toList();
    assertTrue(expected.stream().filter(s -> s.contains("\"engine\":")).count() > 5);
    for (long seed = 1; seed <= 3; seed++) {
      Run run = new Run(settings);
      assertEquals(expected, run.withCrashes(events, new Random(seed)), "seed " + seed);
      assertTrue(run.crashes > 2, run.crashes + " crashes");
    }
  }

  @Test
  void aCommitWritesOnlyWhatChanged() {
    PartitionStage stage = new PartitionStage(StageSettings.defaults());
    TokenEventDecoder decoder = new TokenEventDecoder();
    Counting store = new Counting();
    Stage1Output ignore = new Discard();
    long t0 = GoldenEvents.T0;
    List<Req> open = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      Req r = new Req("r" + i, "model-a");
      open.add(r);
      feed(stage, decoder.decode(r.start(t0 + i)), ignore);
    }
    feed(stage, decoder.decode(Req.heartbeat(t0, "p1", t0)), ignore);
    stage.writeChanges(store);
    assertEquals(
        100 + 1 + 1 + 1 + 1 + 1,
        store.puts,
        "100 requests, their window, a producer, a series, the close time, the clock");

    store.puts = 0;
    stage.writeChanges(store);
    assertEquals(0, store.puts, "nothing changed");

    feed(stage, decoder.decode(open.get(7).token(t0 + 200, 1_000_000)), ignore);
    stage.writeChanges(store);
    assertEquals(3, store.puts, "one request, its (window, series) and the clock");

    store.puts = 0;
    Req shortOne = new Req("short", "model-a");
    for (TokenEvent e :
        List.of(
            shortOne.start(t0 + 300),
            shortOne.token(t0 + 301, 1_000),
            shortOne.end(t0 + 302, 2_000))) {
      feed(stage, decoder.decode(e), ignore);
    }
    stage.writeChanges(store);
    assertEquals(
        2, store.puts, "a request that ended between commits is never written (the clock is)");
    assertEquals(0, store.deletes);
  }

  /** An event as read from a record the producer timestamped with its ts. */
  private static void feed(PartitionStage stage, DecodedEvent event, Stage1Output out) {
    stage.onEvent(event, event.ts(), out);
  }

  /** One partition's stages over a transactional log of their outputs. */
  private static final class Run {
    final StageSettings settings;
    final MapState stage1Store = new MapState();
    final MapState stage2Store = new MapState();
    final List<String> committed = new ArrayList<>();
    final List<String> pending = new ArrayList<>();
    final TokenEventDecoder decoder = new TokenEventDecoder();
    PartitionStage stage;
    WindowMerger merger;
    int crashes;

    Run(StageSettings settings) {
      this.settings = settings;
      start();
    }

    private void start() {
      stage = new PartitionStage(settings);
      stage.load(stage1Store);
      merger = new WindowMerger(1, settings.windowMs(), settings.clientLagThresholdUs());
      merger.load(stage2Store);
      merger.open("events");
    }

    List<String> withCrashes(List<TokenEvent> events, Random random) {
      MergeOutput merged = (summary, json) -> pending.add(new String(json, StandardCharsets.UTF_8));
      Stage1Output out = merger.input(0, merged, null);
      int committedThrough = 0;
      int i = 0;
      long lastTs = Long.MIN_VALUE;
      while (i < events.size()) {
        TokenEvent e = events.get(i++);
        String key = e.requestId() != null ? e.requestId() : e.producerId();
        // through the bytes, as records arrive
        feed(
            stage,
            decoder.decode(key.getBytes(StandardCharsets.UTF_8), TokenEventCodec.encode(e)),
            out);
        lastTs = Math.max(lastTs, e.ts());
        if (random.nextInt(40) == 0) {
          commit();
          committedThrough = i;
        } else if (random.nextInt(150) == 0) {
          pending.clear(); // the transaction is aborted, the working set lost
          start();
          out = merger.input(0, merged, null); // the restarted merger
          crashes++;
          i = committedThrough;
          lastTs = Long.MIN_VALUE;
          for (int j = 0; j < i; j++) {
            lastTs = Math.max(lastTs, events.get(j).ts());
          }
        }
      }
      stage.endOfInput(lastTs, out);
      commit();
      return committed;
    }

    private void commit() {
      stage.writeChanges(stage1Store);
      merger.writeChanges(stage2Store);
      committed.addAll(pending);
      pending.clear();
    }
  }

  private static final class Discard implements Stage1Output {
    @Override
    public void partial(long windowStartMs, SeriesName series, WindowCounts counts) {}

    @Override
    public void windowHealth(long windowStartMs, long pauseMaxUs, long lagMaxUs) {}

    @Override
    public void closedThrough(long windowEndMs) {}
  }

  private static final class Counting implements ByteState {
    final MapState map = new MapState();
    int puts;
    int deletes;

    @Override
    public byte[] get(Bytes key) {
      return map.get(key);
    }

    @Override
    public void put(Bytes key, byte[] value) {
      puts++;
      map.put(key, value);
    }

    @Override
    public void delete(Bytes key) {
      deletes++;
      map.delete(key);
    }

    @Override
    public void range(Bytes from, Bytes to, BiConsumer<Bytes, byte[]> visitor) {
      map.range(from, to, visitor);
    }

    @Override
    public void forEach(BiConsumer<Bytes, byte[]> visitor) {
      map.forEach(visitor);
    }
  }
}

package io.tpotstream.aggregator.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tpotstream.aggregator.fixtures.Req;
import io.tpotstream.aggregator.fixtures.SyntheticLoad;
import io.tpotstream.aggregator.stage1.PartitionStage;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.common.Json;
import io.tpotstream.common.event.DecodedEvent;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventBounds;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.event.TokenEventDecoder;
import io.tpotstream.common.event.TokenEventFormatException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The real topology fed a healthy producer's events with thousands of records drawn from the
 * token-event contract's edges and their mutations in between (each bounded field at its bounds and
 * one past, the ends of a long, empty and huge strings, wrong types, repeated and missing fields,
 * thousands of distinct models and error classes), stamped as the broker would stamp them: the
 * aggregator never stops, every record it refuses is in the dead letters, and the healthy series'
 * summaries are the ones it gives alone (but for the window's client health, which every producer's
 * heartbeats share).
 */
class HostileRecordsPropertyTest {
  static final long T0 = 1_700_000_000_000L;
  static final StageSettings SETTINGS = StageSettings.defaults();
  static final int HOSTILE = 6_000;

  @Test
  void hostileRecordsStopNothingAndChangeNoHealthySummary() throws Exception {
    List<TokenEvent> healthy = SyntheticLoad.events(11, T0, 300);
    List<String> alone;
    try (TopologyHarness h = new TopologyHarness(SETTINGS)) {
      h.pipe(healthy);
      h.advanceWallClock(Duration.ofMinutes(12));
      h.newSummaries();
      alone = healthySeries(h.json);
    }

    Random random = new Random(48);
    TokenEventDecoder decoder = new TokenEventDecoder();
    PartitionStage rules = new PartitionStage(SETTINGS);
    int refused = 0;
    int every = healthy.size() / HOSTILE + 1;
    int sent = 0;
    try (TopologyHarness h = new TopologyHarness(SETTINGS)) {
      for (int i = 0; i < healthy.size(); i++) {
        TokenEvent e = healthy.get(i);
        h.pipe(e);
        for (int k = 0; k < every && sent < HOSTILE; k++, sent++) {
          byte[] value = hostile(random, sent, e.ts());
          String key = "hostile-" + sent;
          if (refuses(decoder, rules, key, value, e.ts())) {
            refused++;
          }
          h.pipeRaw(key, value, e.ts()); // the broker's time: the healthy record's
        }
      }
      h.advanceWallClock(Duration.ofMinutes(12));
      h.newSummaries();
      assertEquals(HOSTILE, sent);
      assertTrue(refused > HOSTILE / 4 && refused < HOSTILE, refused + " refused");
      assertEquals(refused, h.deadLetters().size(), "every refused record is a dead letter");
      assertEquals(alone, healthySeries(h.json), "the healthy summaries, unchanged");
      long hostileStarts =
          h.summaries.stream()
              .filter(s -> !s.model().startsWith("model-"))
              .mapToLong(s -> s.requests().started())
              .sum();
      assertTrue(hostileStarts > 0, "accepted hostile requests are counted in their own series");
    }
  }

  private static boolean refuses(
      TokenEventDecoder decoder, PartitionStage rules, String key, byte[] value, long recordTs) {
    try {
      DecodedEvent event = decoder.decode(key.getBytes(StandardCharsets.UTF_8), value);
      return rules.distrust(event, recordTs) != null;
    } catch (TokenEventFormatException e) {
      return true;
    }
  }

  /** The healthy series' summaries as JSON, without the client health all producers share. */
  private static List<String> healthySeries(List<String> json) throws Exception {
    List<String> out = new ArrayList<>();
    for (String s : json) {
      ObjectNode node = (ObjectNode) Json.MAPPER.readTree(s);
      if (node.path("model").asText().startsWith("model-")) {
        node.remove(List.of("clientPauseMaxMs", "clientLagMaxMs", "clientSuspect"));
        out.add(Json.MAPPER.writeValueAsString(node));
      }
    }
    return out;
  }

  /** A record of a hostile or buggy writer: a valid event of its own, with one mutation. */
  private static byte[] hostile(Random r, int i, long nowMs) throws Exception {
    Req req = new Req("h-" + (i / 4), "hm-" + r.nextInt(2_000), Map.of("h", "" + i % 7), "hp-" + i);
    long ts = nowMs - r.nextInt(60_000);
    TokenEvent base =
        switch (r.nextInt(5)) {
          case 0 -> req.start(ts);
          case 1 -> req.token(ts, 1_000_000L * r.nextInt(1_000));
          case 2 -> req.end(ts, 1_000_000L * r.nextInt(1_000));
          case 3 -> req.error(ts, 1_000_000L * r.nextInt(1_000), "free text " + r.nextInt());
          default -> Req.heartbeat(ts, "hp-" + i, ts - r.nextInt(1_000));
        };
    ObjectNode node = (ObjectNode) Json.MAPPER.readTree(TokenEventCodec.encode(base));
    String text = null;
    switch (r.nextInt(8)) {
      case 0, 1 -> {
        TokenEventBounds.Range range =
            TokenEventBounds.RANGES.get(r.nextInt(TokenEventBounds.RANGES.size()));
        long[] edges = {
          range.min() - 1,
          range.min(),
          range.max(),
          range.max() + 1,
          0,
          -1,
          Long.MIN_VALUE,
          Long.MAX_VALUE
        };
        node.put(range.field(), edges[r.nextInt(edges.length)]);
      }
      case 2 -> {
        TokenEventBounds.Length length =
            TokenEventBounds.LENGTHS.get(r.nextInt(TokenEventBounds.LENGTHS.size()));
        int[] sizes = {0, 1, length.maxChars(), length.maxChars() + 1, 400_000};
        node.put(length.field(), "x".repeat(sizes[r.nextInt(sizes.length)]));
      }
      case 3 -> {
        ObjectNode labels = node.putObject("labels");
        int n = r.nextBoolean() ? TokenEventBounds.MAX_LABELS : 1_000;
        for (int k = 0; k < n; k++) {
          labels.put("k" + k, "v".repeat(r.nextInt(300)));
        }
      }
      case 4 -> {
        // a wrong type in a field that exists
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        String field = names.get(r.nextInt(names.size()));
        JsonNode[] wrong = {
          Json.MAPPER.getNodeFactory().textNode("12"),
          Json.MAPPER.getNodeFactory().numberNode(12),
          Json.MAPPER.getNodeFactory().objectNode(),
          Json.MAPPER.getNodeFactory().arrayNode(),
          Json.MAPPER.getNodeFactory().nullNode(),
          Json.MAPPER.getNodeFactory().numberNode(1.5)
        };
        node.set(field, wrong[r.nextInt(wrong.length)]);
      }
      case 5 -> {
        // a field written twice (Jackson's tree cannot hold it: done on the text)
        String json = Json.MAPPER.writeValueAsString(node);
        text = json.substring(0, json.length() - 1) + ",\"ts\":" + (ts + 1) + "}";
      }
      case 6 -> {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        node.remove(names.get(r.nextInt(names.size())));
      }
      default -> {} // well-formed: counted in its own series
    }
    if (text == null) {
      text = Json.MAPPER.writeValueAsString(node);
    }
    return text.getBytes(StandardCharsets.UTF_8);
  }
}

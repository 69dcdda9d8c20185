package io.tpotstream.aggregator.stage1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.tpotstream.common.event.TokenEventDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Series ids looked up by the bytes records wrote, and by name when the bytes are new. */
class SeriesIdsTest {
  private final TokenEventDecoder decoder = new TokenEventDecoder();
  private final SeriesIds ids = new SeriesIds(false);
  private static final List<String> BY_TARGET = List.of("target");

  private int of(String model, String labels, long clockMs) {
    String json =
        "{\"type\":\"start\",\"v\":1,\"ts\":1700000000000,\"runId\":\"r\",\"requestId\":\"q\","
            + "\"model\":\""
            + model
            + "\""
            + (labels == null ? "" : ",\"labels\":" + labels)
            + ",\"elapsedNs\":0,\"producerId\":\"p\"}";
    return ids.of(decoder.decode(null, json.getBytes(StandardCharsets.UTF_8)), BY_TARGET, clockMs);
  }

  @Test
  void theSameSeriesHasOneIdHoweverItsLabelsAreWritten() {
    int a = of("m", "{\"target\":\"gw\",\"run\":\"1\"}", 0);
    assertEquals(a, of("m", "{\"target\":\"gw\",\"run\":\"1\"}", 0), "the same bytes");
    assertEquals(a, of("m", "{\"run\":\"1\",\"target\":\"gw\"}", 0), "another order");
    assertEquals(a, of("m", "{\"target\":\"gw\",\"run\":\"2\"}", 0), "a label not grouped by");
    int noLabels = of("m", null, 0);
    assertNotEquals(a, noLabels);
    assertEquals(noLabels, of("m", "{}", 0), "no labels, or an empty object");
    assertNotEquals(a, of("m", "{\"target\":\"direct\"}", 0));
    assertNotEquals(a, of("n", "{\"target\":\"gw\"}", 0));
    assertEquals(4, ids.kept());
  }

  @Test
  void aLabelThatVariesWithoutBeingGroupedByKeepsOneSeries() {
    int first = of("m", "{\"target\":\"gw\",\"nonce\":\"0\"}", 0);
    for (int i = 1; i < 10_000; i++) {
      assertEquals(first, of("m", "{\"target\":\"gw\",\"nonce\":\"" + i + "\"}", 0));
    }
    assertEquals(1, ids.kept());
  }

  @Test
  void anIdFreedAndGivenToAnotherSeriesIsNotFoundByTheOldBytes() {
    int old = of("m", "{\"target\":\"gw\"}", 0);
    ids.prune(new boolean[ids.size()], 120_000, 60_000, id -> {});
    assertEquals(0, ids.kept());
    int other = of("n", "{\"target\":\"gw\"}", 120_000);
    assertEquals(old, other, "the freed id is given again");
    int again = of("m", "{\"target\":\"gw\"}", 120_000);
    assertNotEquals(other, again);
    assertEquals("m{target=gw}", ids.name(again).series());
    assertEquals("n{target=gw}", ids.name(other).series());
  }

  @Test
  void seriesPastTheCapAreCountedAsOneOtherSeries() {
    for (int i = 0; i < SeriesIds.MAX_SERIES; i++) {
      assertEquals(i, of("m" + i, null, 0));
    }
    int other = of("one-too-many", null, 0);
    assertEquals(SeriesIds.MAX_SERIES, other);
    assertEquals(other, of("yet-another", "{\"target\":\"x\"}", 0));
    assertEquals(SeriesIds.OVERFLOW, ids.name(other).series());
    assertEquals(SeriesIds.OVERFLOW, ids.name(other).model());
    assertEquals(5, of("m5", null, 0), "a series kept before the cap keeps its id");
    assertEquals(SeriesIds.MAX_SERIES + 1, ids.kept());
  }
}

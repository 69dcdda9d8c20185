package io.tpotstream.app.cli;

import static io.tpotstream.app.cli.TpotCli.tpot;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.request.RequestRecord;
import io.tpotstream.common.request.RequestRecords;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tpot stats --slo --goodput --requests-out} on a file of known events. */
class StatsSloTest {
  static final long T0 = 1_700_000_000_000L;

  @TempDir Path dir;

  /**
   * Four requests in one 10 s window: TTFT 100, 200, 300 ms, 10 chunks 2 ms apart (the last
   * request's last gap 40 ms), and one that fails with http_5xx after 2 chunks.
   */
  private Path events() throws Exception {
    List<TokenEvent> events = new ArrayList<>();
    Map<String, String> labels = Map.of();
    for (int r = 0; r < 4; r++) {
      String id = "req-" + r;
      long start = T0 + r * 100L;
      events.add(TokenEvent.start(start, "run", id, "m", labels, null, "p1"));
      long elapsed = (r + 1) * 100_000_000L;
      int chunks = r == 3 ? 2 : 10;
      for (int k = 0; k < chunks; k++) {
        events.add(TestEvents.content(start + elapsed / 1_000_000, id, labels, elapsed, k));
        elapsed += r == 2 && k == 8 ? 40_000_000L : 2_000_000L;
      }
      events.add(
          r == 3
              ? TokenEvent.error(
                  start + 1_000,
                  "run",
                  id,
                  "m",
                  labels,
                  900_000_000L,
                  2,
                  "http_5xx",
                  500,
                  "boom",
                  null,
                  "p1")
              : TokenEvent.end(
                  start + 1_000, "run", id, "m", labels, elapsed, 10, 5, 10, "stop", null, "p1"));
    }
    events.add(TokenEvent.heartbeat(T0 + 5_000, "run", "p1", T0 + 5_000, true, null));
    return TestEvents.write(dir.resolve("events.jsonl"), events);
  }

  @Test
  void anSloOverAFileWhereEveryRequestFailedExits3AndSaysNoData() throws Exception {
    List<TokenEvent> events = new ArrayList<>();
    for (int r = 0; r < 3; r++) {
      String id = "req-" + r;
      long start = T0 + r * 100L;
      events.add(TokenEvent.start(start, "run", id, "m", Map.of(), null, "p1"));
      events.add(
          TokenEvent.error(
              start + 20,
              "run",
              id,
              "m",
              Map.of(),
              20_000_000L,
              0,
              "http_401",
              401,
              "unauthorized",
              null,
              "p1"));
    }
    events.add(TokenEvent.heartbeat(T0 + 5_000, "run", "p1", T0 + 5_000, true, null));
    Path file = TestEvents.write(dir.resolve("failed.jsonl"), events);
    TpotCli.Result r =
        tpot("stats", file.toString(), "--slo", "tpot_p99=1s,error_rate=100%", "--format", "json");
    assertEquals(3, r.exit(), r.err());
    assertTrue(
        r.err().strip().endsWith("tpot stats: SLO failed: tpot_p99: no data, 0 samples (m)"),
        r.err());
    assertTrue(
        r.out()
            .contains(
                "\"slo\":{\"objectives\":[{\"name\":\"tpot_p99\",\"limit\":1000.000,\"met\":false,"
                    + "\"noData\":true},{\"name\":\"error_rate\",\"limit\":1,"
                    + "\"measured\":1.0000,\"met\":true}],\"met\":false}"),
        r.out());
  }

  @Test
  void anImpossibleSloExits3AndNamesTheObjective() throws Exception {
    TpotCli.Result r = tpot("stats", events().toString(), "--slo", "tpot_max=10ms,error_rate=50%");
    assertEquals(3, r.exit(), r.err());
    assertTrue(
        r.err().strip().endsWith("tpot stats: SLO failed: tpot_max 40.031 ms > 10 ms (m)"),
        r.err());
  }

  @Test
  void anEasySloExits0AndEverySummaryCarriesItsSection() throws Exception {
    TpotCli.Result r =
        tpot(
            "stats",
            events().toString(),
            "--slo",
            "tpot_p99=1s,error_rate=30%,goodput=50%",
            "--goodput",
            "ttft=250ms",
            "--format",
            "json");
    assertEquals(0, r.exit(), r.err());
    assertTrue(
        r.err()
            .strip()
            .endsWith(
                "tpot stats: SLO met: tpot_p99 <= 1000 ms, error_rate <= 30%, goodput >= 50%"
                    + " (1 series, whole run); goodput 50%"),
        r.err());
    JsonNode summary = Json.MAPPER.readTree(r.out().lines().findFirst().orElseThrow());
    JsonNode slo = summary.path("slo");
    // requests 0 and 1 have TTFT <= 250 ms; 2 is late, 3 failed
    assertEquals(2, slo.path("goodRequests").asInt());
    assertTrue(r.out().contains("\"goodput\":0.5000,\"goodRequests\":2,\"met\":true}"), r.out());
    assertEquals("error_rate", slo.path("objectives").get(1).path("name").asText());
    assertEquals(0.25, slo.path("objectives").get(1).path("measured").asDouble());
    assertTrue(slo.path("met").asBoolean());
  }

  @Test
  void requestsOutHasOneLinePerRequestWithItsOwnNumbers() throws Exception {
    Path out = dir.resolve("requests.jsonl");
    TpotCli.Result r =
        tpot(
            "stats",
            events().toString(),
            "--requests-out",
            out.toString(),
            "--goodput",
            "ttft=250ms");
    assertEquals(0, r.exit(), r.err());
    List<RequestRecord> records =
        Files.readAllLines(out).stream().map(RequestRecords::decode).toList();
    assertEquals(4, records.size());
    RequestRecord slow =
        records.stream().filter(x -> x.requestId().equals("req-2")).findFirst().orElseThrow();
    assertEquals("300.000", slow.ttftMs().toPlainString());
    assertEquals("2.000", slow.gapP50Ms().toPlainString());
    assertEquals("40.031", slow.gapMaxMs().toPlainString());
    assertEquals(9, slow.gaps());
    assertEquals(false, slow.good());
    RequestRecord failed =
        records.stream().filter(x -> x.requestId().equals("req-3")).findFirst().orElseThrow();
    assertEquals("failed", failed.outcome());
    assertEquals("http_5xx", failed.errorClass());
    assertTrue(r.err().contains("4 request records in " + out), r.err());
  }
}

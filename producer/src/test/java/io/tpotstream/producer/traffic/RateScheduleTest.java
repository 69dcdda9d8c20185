package io.tpotstream.producer.traffic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.producer.config.Arrival;
import io.tpotstream.producer.config.ConfigException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RateScheduleTest {
  @TempDir Path dir;

  private static List<Long> all(Arrivals arrivals) {
    List<Long> times = new ArrayList<>();
    for (long t; (t = arrivals.nextNs()) >= 0; ) {
      times.add(t);
    }
    return times;
  }

  @Test
  void stepsSendEachRateForItsStretchThenEnd() {
    RateSchedule s = RateSchedule.parse("--schedule", "0s:2/s,10s:5/s,20s:end");
    assertEquals(Duration.ofSeconds(20), s.end());
    List<Long> times = all(new Arrivals(s, Arrival.CONSTANT, 1));
    assertEquals(70, times.size(), "2/s for 10 s, then 5/s for 10 s");
    assertEquals(0L, times.get(0));
    assertEquals(500_000_000L, times.get(1));
    assertEquals(9_500_000_000L, times.get(19));
    assertEquals(10_000_000_000L, times.get(20));
    assertEquals(10_200_000_000L, times.get(21));
    assertEquals(19_800_000_000L, times.get(69));
    assertEquals("steps 0s:2/s, 10s:5/s, 20s:end", s.describe());
  }

  @Test
  void aRampRaisesTheRateLinearly() {
    RateSchedule s =
        RateSchedule.parse(
            "--schedule", "ramp:0s:0/s,10s:10/s,10s:end".replace(",10s:end", ",20s:end"));
    // rate t per second for 10 s (50 requests), then 10/s for 10 s (100 requests)
    assertEquals(50.0, s.cumulative(10), 1e-9);
    assertEquals(5.0, s.rateAt(5), 1e-9);
    List<Long> times = all(new Arrivals(s, Arrival.CONSTANT, 1));
    assertEquals(150, times.size());
    assertEquals(2_000_000_000L, times.get(2), "t^2/2 = 2 at t = 2 s");
    assertEquals(10_000_000_000L, times.get(50));
    assertEquals(10_100_000_000L, times.get(51));
  }

  @Test
  void aStretchAtRateZeroIsSkippedAndPoissonKeepsTheMeanRate() {
    RateSchedule s = RateSchedule.parse("--schedule", "0s:0/s,5s:4/s,10s:0/s,15s:4/s,20s:end");
    List<Long> times = all(new Arrivals(s, Arrival.CONSTANT, 1));
    assertEquals(40, times.size());
    assertEquals(5_000_000_000L, times.get(0));
    assertEquals(15_000_000_000L, times.get(20));
    assertTrue(times.stream().noneMatch(t -> t >= 10_000_000_000L && t < 15_000_000_000L));
    RateSchedule steady = RateSchedule.parse("--schedule", "0s:100/s,100s:end");
    int poisson = all(new Arrivals(steady, Arrival.POISSON, 3)).size();
    assertTrue(poisson > 9_700 && poisson < 10_300, "10,000 expected, got " + poisson);
    assertEquals(all(new Arrivals(steady, Arrival.POISSON, 3)).size(), poisson, "seeded");
  }

  @Test
  void aConstantRateIsTheOldOpenLoop() {
    Arrivals a = new Arrivals(RateSchedule.constant(4), Arrival.CONSTANT, 1);
    assertEquals(0L, a.nextNs());
    assertEquals(250_000_000L, a.nextNs());
    assertEquals(500_000_000L, a.nextNs());
  }

  @Test
  void aScheduleFileAndPerMinuteRates() throws Exception {
    Path file = dir.resolve("schedule.txt");
    Files.writeString(file, "# warm, then busy\n0s: 60/m\n1m: 3/s  # peak\n2m: end\n");
    RateSchedule s = RateSchedule.parse("--schedule", "@" + file);
    assertEquals(1.0, s.rateAt(30), 1e-9);
    assertEquals(3.0, s.rateAt(90), 1e-9);
    assertEquals(240, all(new Arrivals(s, Arrival.CONSTANT, 1)).size());
    assertEquals(s.describe(), RateSchedule.parse("--schedule", file.toString()).describe());
  }

  @Test
  void badSchedulesSayWhatIsWrong() {
    assertEquals(
        "--schedule: the first point must be at 0s, got '5s:2/s'",
        assertThrows(ConfigException.class, () -> RateSchedule.parse("--schedule", "5s:2/s"))
            .getMessage());
    assertEquals(
        "--schedule: times must increase, but '5s:1/s' is not after the point before",
        assertThrows(
                ConfigException.class,
                () -> RateSchedule.parse("--schedule", "0s:2/s,10s:3/s,5s:1/s"))
            .getMessage());
    assertEquals(
        "--schedule: cannot read the rate in '0s:fast' (write e.g. 2/s, 0.5/s, 120/m or end)",
        assertThrows(ConfigException.class, () -> RateSchedule.parse("--schedule", "0s:fast"))
            .getMessage());
  }

  @Test
  void sweepsNameTheirStagesByLoad() {
    Sweep c = Sweep.parse("--sweep", "concurrency=1,4,16");
    assertEquals(
        List.of("concurrency-1", "concurrency-4", "concurrency-16"),
        c.stages().stream().map(Sweep.Stage::name).toList());
    assertEquals(4, c.stages().get(1).concurrency());
    Sweep r = Sweep.parse("--sweep", "rate=0.5,2");
    assertEquals("rate-0.5", r.stages().get(0).name());
    assertEquals(0.5, r.stages().get(0).rate());
    assertEquals(new BigDecimal("2"), r.stages().get(1).load());
    assertEquals("rate=0.5,2", r.text());
    assertEquals(
        "--sweep: concurrency must be a whole number, got 1.5",
        assertThrows(ConfigException.class, () -> Sweep.parse("--sweep", "concurrency=1.5"))
            .getMessage());
    assertTrue(
        assertThrows(ConfigException.class, () -> Sweep.parse("--sweep", "batch=1,2"))
            .getMessage()
            .startsWith("--sweep: 'batch=1,2' is not concurrency=N,N,... or rate=R,R,..."));
  }
}

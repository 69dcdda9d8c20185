package io.tpotstream.bench.fidelity;

import io.tpotstream.bench.BenchEnv;
import io.tpotstream.bench.Report;
import io.tpotstream.bench.jvm.ChildJvm;
import io.tpotstream.bench.jvm.ProducerChild;
import io.tpotstream.bench.workload.BenchTopics;
import io.tpotstream.common.Json;
import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * B2: the producer (in its own JVM, as {@code tpot run} has it) against the simulator, at a number
 * of concurrent streams of 50 tokens/s: how far its measured gaps are from the gaps the simulator
 * actually sent, how many events/s it sustains, the CPU it takes and its own worst pause; then the
 * schedule lag of open-loop runs below and above what it can serve.
 */
public final class ProducerFidelity {
  static final String CONSTANT = BenchProfiles.CONSTANT;
  static final String LOGNORMAL = BenchProfiles.LOGNORMAL;
  static final int MAX_TOKENS = 100;
  static final int OPEN_LOOP_CAP = 200;

  private ProducerFidelity() {}

  public static void run(BenchEnv env, Report report) {
    List<Integer> streams = env.pick(List.of(100, 1_000, 2_000), List.of(100, 1_000));
    Duration runFor = env.pick(Duration.ofSeconds(30), Duration.ofSeconds(7));
    report.section(
        "B2",
        "producer fidelity and capacity (closed loop, "
            + MAX_TOKENS
            + "-token responses at 50 tokens/s, "
            + runFor.toSeconds()
            + " s per run)");
    for (String model : List.of(CONSTANT, LOGNORMAL)) {
      for (int n : streams) {
        closedLoop(env, report, model, n, runFor);
      }
    }
    Duration openFor = env.pick(Duration.ofSeconds(20), Duration.ofSeconds(5));
    report.note(
        "open loop: Poisson arrivals of 50-token requests (about 1.2 s each), at most "
            + OPEN_LOOP_CAP
            + " in flight (so about "
            + OPEN_LOOP_CAP * 10 / 12
            + " requests/s can be served), "
            + openFor.toSeconds()
            + " s of arrivals");
    openLoop(env, report, 50, openFor);
    openLoop(env, report, 340, openFor);
  }

  private static void closedLoop(
      BenchEnv env, Report report, String model, int streams, Duration runFor) {
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put("models", model);
    keys.put("concurrency", Integer.toString(streams));
    keys.put("duration", runFor.toSeconds() + "s");
    keys.put("max_tokens", Integer.toString(MAX_TOKENS));
    Outcome o = runProducer(env, keys, "b2-" + model + "-" + streams, runFor.plusSeconds(90));
    String label = (model.equals(CONSTANT) ? "constant" : "lognormal") + " x " + streams;
    Distortion d = Distortion.of(o.events, o.truth);
    LatencyHistogram abs = d.absolute;
    report.headline(
        label + ": |distortion| p50 / p99 / p99.9 / max",
        String.format(
            Locale.ROOT,
            "%s / %s / %s / %s (%s gaps; mean %+.3f ms)",
            Report.ms(abs.percentileMicros(50)),
            Report.ms(abs.percentileMicros(99)),
            Report.ms(abs.percentileMicros(99.9)),
            Report.ms(abs.maxMicros()),
            Report.count(d.pairs),
            d.pairs == 0 ? 0 : d.sumNs / (double) d.pairs / 1e6));
    if (d.requestsWithoutTruth > 0) {
      report.note(d.requestsWithoutTruth + " requests had no ground truth kept");
    }
    long fromMs = o.events.firstStartTsMs + 1000;
    long toMs = o.events.firstStartTsMs + runFor.toMillis();
    double sustained = o.events.tokensBetween(fromMs, toMs) / ((toMs - fromMs) / 1000.0);
    report.headline(
        label + ": token events sustained",
        Report.perSecond(sustained, "events")
            + String.format(
                Locale.ROOT, " (nominal %,d; gaps only, TTFTs excluded)", streams * 50));
    report.figure(
        label + ": producer CPU",
        String.format(
            Locale.ROOT,
            "%.2f cores = %.0f%% of the machine; %.1f µs CPU per event",
            o.result.costs().coresUsed(),
            100 * o.result.costs().coresUsed() / o.result.costs().cores(),
            o.result.costs().cpuNs() / 1e3 / Math.max(1, o.result.eventsPublished())));
    report.figure(
        label + ": producer's worst own pause",
        Report.ms(o.result.clientPauseMaxUs())
            + " ("
            + o.result.costs().gcCount()
            + " GCs, "
            + o.result.costs().gcMs()
            + " ms in GC)");
    report.figure(
        label + ": requests",
        Report.count(o.result.completed())
            + " completed, "
            + Report.count(o.result.failed())
            + " failed "
            + o.result.errors());
    StringBuilder busiest = new StringBuilder();
    o.result.costs().cpuMsByThreadGroup().entrySet().stream()
        .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
        .limit(5)
        .forEach(
            e ->
                busiest
                    .append(busiest.length() == 0 ? "" : ", ")
                    .append(e.getKey())
                    .append(' ')
                    .append(e.getValue())
                    .append(" ms"));
    report.note("busiest producer threads (CPU): " + busiest);
  }

  private static void openLoop(BenchEnv env, Report report, int rate, Duration openFor) {
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put("models", CONSTANT);
    keys.put("rate", Integer.toString(rate));
    keys.put("arrival", "poisson");
    keys.put("concurrency", Integer.toString(OPEN_LOOP_CAP));
    keys.put("duration", openFor.toSeconds() + "s");
    keys.put("max_tokens", "50");
    Outcome o = runProducer(env, keys, "b2-open-" + rate, openFor.multipliedBy(6).plusSeconds(90));
    LatencyHistogram lag = new LatencyHistogram();
    for (EventsTopic.Request r : o.events.requests.values()) {
      if (r.scheduleLagNs != null) {
        lag.recordNanos(r.scheduleLagNs);
      }
    }
    report.headline(
        "open loop " + rate + " req/s: schedule lag p50 / p99 / max",
        String.format(
            Locale.ROOT,
            "%s / %s / %s (%s requests%s)",
            Report.ms(lag.percentileMicros(50)),
            Report.ms(lag.percentileMicros(99)),
            Report.ms(lag.maxMicros()),
            Report.count(lag.count()),
            o.result.notSent() > 0 ? ", " + o.result.notSent() + " never sent" : ""));
  }

  private record Outcome(
      ProducerChild.Result result,
      EventsTopic events,
      io.tpotstream.simulator.truth.GroundTruth truth) {}

  private static Outcome runProducer(
      BenchEnv env, Map<String, String> keys, String name, Duration timeout) {
    SimulatorConfig simConfig =
        SimulatorConfig.defaults()
            .withPort(0)
            .withSeed(7L)
            .withProfiles(BenchProfiles.fiftyTokensPerSecond())
            .withRequestsKept(1_000_000);
    try (Simulator simulator = Simulator.start(simConfig)) {
      String topic = BenchTopics.unique("bench-" + name);
      BenchTopics.create(env.bootstrapServers(), topic, 3);
      List<String> args = new ArrayList<>(List.of(env.bootstrapServers(), topic, "0"));
      args.add("base_url=" + simulator.baseUrl());
      args.add("run_id=" + name);
      args.add("stop_grace=10s");
      keys.forEach((k, v) -> args.add(k + "=" + v));
      ProducerChild.Result result;
      try (ChildJvm child =
          ChildJvm.start(
              ProducerChild.class,
              env.childJvmOptions(),
              args,
              env.workDir().resolve(name + ".log"))) {
        ChildJvm.Line line = child.await("result", timeout);
        result = Json.MAPPER.treeToValue(line.json(), ProducerChild.Result.class);
        child.waitFor(Duration.ofSeconds(30));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      } catch (java.io.IOException e) {
        throw new IllegalStateException("unreadable result from the producer: " + e, e);
      }
      EventsTopic events = EventsTopic.read(env.bootstrapServers(), topic);
      return new Outcome(result, events, simulator.truth());
    }
  }
}

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
import java.io.IOException;
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
 * schedule lag of open-loop runs below and above what it can serve. The runs share one producer
 * JVM, warmed up by a first run that is not reported.
 */
public final class ProducerFidelity {
  static final int MAX_TOKENS = 100;
  static final int OPEN_LOOP_CAP = 200;
  static final int OPEN_LOOP_TOKENS = 50;

  private ProducerFidelity() {}

  /** One run and how to report it. */
  private record Planned(String label, ProducerChild.RunSpec spec, int streams, Duration length) {}

  public static void run(BenchEnv env, Report report) {
    List<Integer> streams = env.pick(List.of(100, 1_000, 2_000), List.of(100, 1_000));
    Duration runFor = env.pick(Duration.ofSeconds(30), Duration.ofSeconds(5));
    Duration openFor = env.pick(Duration.ofSeconds(20), Duration.ofSeconds(3));
    report.section(
        "B2",
        "producer fidelity and capacity (closed loop, "
            + MAX_TOKENS
            + "-token responses at 50 tokens/s, "
            + runFor.toSeconds()
            + " s per run, after a warm-up run)");
    List<Planned> plan = new ArrayList<>();
    plan.add(
        closed(
            "warm-up",
            BenchProfiles.CONSTANT,
            200,
            env.pick(Duration.ofSeconds(10), Duration.ofSeconds(4))));
    for (String model : List.of(BenchProfiles.CONSTANT, BenchProfiles.LOGNORMAL)) {
      String shape = model.equals(BenchProfiles.CONSTANT) ? "constant" : "lognormal";
      for (int n : streams) {
        plan.add(closed(shape + " x " + n, model, n, runFor));
      }
    }
    plan.add(open(50, openFor));
    plan.add(open(340, openFor));

    SimulatorConfig simConfig =
        SimulatorConfig.defaults()
            .withPort(0)
            .withSeed(7L)
            .withProfiles(BenchProfiles.fiftyTokensPerSecond())
            .withRequestsKept(1_000_000);
    try (Simulator simulator = Simulator.start(simConfig)) {
      List<ProducerChild.RunSpec> specs = new ArrayList<>();
      for (Planned p : plan) {
        BenchTopics.create(env.bootstrapServers(), p.spec().topic(), 3);
        Map<String, String> keys = new LinkedHashMap<>(p.spec().keys());
        keys.put("base_url", simulator.baseUrl());
        specs.add(new ProducerChild.RunSpec(p.spec().topic(), keys));
      }
      List<String> args =
          List.of(env.bootstrapServers(), "0", Json.MAPPER.writeValueAsString(specs));
      try (ChildJvm child =
          ChildJvm.start(
              ProducerChild.class,
              env.childJvmOptions(),
              args,
              env.workDir().resolve("b2-producer.log"))) {
        for (int i = 0; i < plan.size(); i++) {
          Planned p = plan.get(i);
          if (i > 0) {
            child.send("next");
          }
          ChildJvm.Line line = child.await("result", p.length().multipliedBy(6).plusSeconds(90));
          ProducerChild.Result result =
              Json.MAPPER.treeToValue(line.json(), ProducerChild.Result.class);
          if (i == 0) {
            report.note(
                "warm-up run: "
                    + Report.count(result.eventsPublished())
                    + " events (not reported)");
          } else {
            EventsTopic events = EventsTopic.read(env.bootstrapServers(), p.spec().topic());
            if (p.spec().keys().containsKey("rate")) {
              if (p.spec().keys().get("rate").equals("50")) {
                report.note(openLoopNote(openFor));
              }
              reportOpenLoop(report, p, result, events);
            } else {
              reportClosedLoop(report, p, result, events, Distortion.of(events, simulator.truth()));
            }
          }
          simulator.truth().reset();
        }
        child.waitFor(Duration.ofSeconds(60));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (IOException e) {
      throw new IllegalStateException("unreadable report from the producer: " + e.getMessage(), e);
    }
  }

  private static Planned closed(String label, String model, int streams, Duration length) {
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put("run_id", "b2-" + label.replace(" ", ""));
    keys.put("models", model);
    keys.put("concurrency", Integer.toString(streams));
    keys.put("duration", length.toSeconds() + "s");
    keys.put("max_tokens", Integer.toString(MAX_TOKENS));
    keys.put("stop_grace", "10s");
    return new Planned(
        label,
        new ProducerChild.RunSpec(BenchTopics.unique("bench-b2-" + label.replace(" ", "")), keys),
        streams,
        length);
  }

  private static Planned open(int rate, Duration length) {
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put("run_id", "b2-open-" + rate);
    keys.put("models", BenchProfiles.CONSTANT);
    keys.put("rate", Integer.toString(rate));
    keys.put("arrival", "poisson");
    keys.put("concurrency", Integer.toString(OPEN_LOOP_CAP));
    keys.put("duration", length.toSeconds() + "s");
    keys.put("max_tokens", Integer.toString(OPEN_LOOP_TOKENS));
    keys.put("stop_grace", "10s");
    return new Planned(
        "open loop " + rate + " req/s",
        new ProducerChild.RunSpec(BenchTopics.unique("bench-b2-open-" + rate), keys),
        0,
        length);
  }

  private static void reportClosedLoop(
      Report report, Planned p, ProducerChild.Result r, EventsTopic events, Distortion d) {
    LatencyHistogram abs = d.absolute;
    report.headline(
        p.label() + ": |distortion| p50 / p99 / p99.9 / max",
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
    long fromMs = events.firstStartTsMs + 1000;
    long toMs = events.firstStartTsMs + p.length().toMillis();
    double sustained = events.tokensBetween(fromMs, toMs) / ((toMs - fromMs) / 1000.0);
    report.headline(
        p.label() + ": token events sustained",
        Report.perSecond(sustained, "events")
            + String.format(
                Locale.ROOT,
                " (%,d streams x 50/s = %,d while streaming; TTFTs and request turns pause them)",
                p.streams(),
                p.streams() * 50));
    double cores = r.coresBetween(1000, p.length().toMillis());
    report.figure(
        p.label() + ": producer CPU",
        String.format(
            Locale.ROOT,
            "%.2f cores = %.0f%% of the machine (%.1f µs per event)",
            cores,
            100 * cores / r.costs().cores(),
            cores * 1e6 / Math.max(1, sustained)));
    report.figure(
        p.label() + ": producer's worst own pause",
        Report.ms(r.clientPauseMaxUs())
            + " ("
            + r.costs().gcCount()
            + " GCs, "
            + r.costs().gcMs()
            + " ms in GC)");
    report.figure(
        p.label() + ": requests",
        Report.count(r.completed())
            + " completed, "
            + Report.count(r.failed())
            + " failed"
            + (r.errors().isEmpty() ? "" : " " + r.errors()));
    StringBuilder busiest = new StringBuilder();
    r.costs().cpuMsByThreadGroup().entrySet().stream()
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
    report.note("busiest producer threads (CPU over the run): " + busiest);
  }

  private static void reportOpenLoop(
      Report report, Planned p, ProducerChild.Result r, EventsTopic events) {
    LatencyHistogram lag = new LatencyHistogram();
    for (EventsTopic.Request req : events.requests.values()) {
      if (req.scheduleLagNs != null) {
        lag.recordNanos(req.scheduleLagNs);
      }
    }
    report.headline(
        p.label() + ": schedule lag p50 / p99 / max",
        String.format(
            Locale.ROOT,
            "%s / %s / %s (%s requests%s)",
            Report.ms(lag.percentileMicros(50)),
            Report.ms(lag.percentileMicros(99)),
            Report.ms(lag.maxMicros()),
            Report.count(lag.count()),
            r.notSent() > 0 ? ", " + r.notSent() + " never sent" : ""));
  }

  /** The open-loop runs' setting, for the report's note. */
  public static String openLoopNote(Duration length) {
    return "open loop: Poisson arrivals of "
        + OPEN_LOOP_TOKENS
        + "-token requests (about 1.2 s each), at most "
        + OPEN_LOOP_CAP
        + " in flight (so about "
        + OPEN_LOOP_CAP * 10 / 12
        + " requests/s can be served), "
        + length.toSeconds()
        + " s of arrivals";
  }
}

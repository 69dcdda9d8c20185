package io.tpotstream.bench.fidelity;

import io.tpotstream.bench.BenchEnv;
import io.tpotstream.bench.BenchReport;
import io.tpotstream.bench.jvm.ChildJvm;
import io.tpotstream.bench.jvm.ProducerChild;
import io.tpotstream.bench.workload.BenchTopics;
import io.tpotstream.common.Json;
import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.simulator.truth.GroundTruth;
import io.tpotstream.simulator.truth.RequestTruth;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

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

  /** Streams of the side-by-side comparison with the Python anchor (the setting). */
  static final int ANCHOR_STREAMS = 200;

  /** Each run's own warm-up: at least 3 s, then until the JIT is quiet (the producer's rule). */
  static final String RUN_WARMUP = "3s";

  /** What a planned run is for. */
  private enum Kind {
    WARMUP,
    CLOSED,
    STALL,
    ANCHOR,
    OPEN
  }

  /** One run and how to report it. */
  private record Planned(
      String label, Kind kind, ProducerChild.RunSpec spec, int streams, Duration length) {}

  public static void run(BenchEnv env, BenchReport report) {
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
    int anchorRequests = Integer.getInteger("tpot.bench.anchorRequests", env.pick(2_000, 400));
    int anchorTokens = env.pick(200, 100);
    List<Planned> plan = new ArrayList<>();
    plan.add(warmup(Long.getLong("tpot.bench.warmupSeconds", env.pick(30L, 15L))));
    for (String model : List.of(BenchProfiles.CONSTANT, BenchProfiles.LOGNORMAL)) {
      String shape = model.equals(BenchProfiles.CONSTANT) ? "constant" : "lognormal";
      for (int n : streams) {
        plan.add(closed(shape + " x " + n, Kind.CLOSED, model, n, runFor));
      }
    }
    plan.add(stall());
    plan.add(anchor(anchorRequests, anchorTokens));
    plan.add(open(50, openFor));
    plan.add(open(340, openFor));
    // -Dtpot.bench.b2=anchor: only the side-by-side comparison (to compare settings quickly)
    if ("anchor".equals(System.getProperty("tpot.bench.b2"))) {
      plan.removeIf(p -> p.kind() != Kind.WARMUP && p.kind() != Kind.ANCHOR);
    }
    Optional<String> python = PythonAnchor.python();
    report.note("producer JVM: " + String.join(" ", env.producerJvmOptions()));

    SimulatorConfig simConfig =
        BenchProfiles.simulator(7L, BenchProfiles.fiftyTokensPerSecond(), 1_000_000);
    try (Simulator simulator = Simulator.start(simConfig)) {
      // the side-by-side run gets a JVM of its own, started as `tpot produce` starts one (its own
      // warm-up until the JIT settles): a new run in a used JVM deoptimises and recompiles its hot
      // paths while it is measured
      List<Planned> shared = plan.stream().filter(p -> p.kind() != Kind.ANCHOR).toList();
      List<Planned> own = plan.stream().filter(p -> p.kind() == Kind.ANCHOR).toList();
      Context c =
          new Context(
              env,
              report,
              simulator,
              python,
              anchorRequests,
              anchorTokens,
              openFor,
              null,
              null,
              null);
      if (shared.size() > 1) {
        runInChild(c, shared, "b2-producer.log");
      }
      if (!own.isEmpty()) {
        if (python.isPresent()) {
          // the anchor first, alone on the machine, against the same simulator and profile
          PythonAnchor.Result py =
              PythonAnchor.run(
                  python.get(),
                  env.workDir(),
                  simulator.baseUrl() + "/chat/completions",
                  BenchProfiles.LOGNORMAL,
                  ANCHOR_STREAMS,
                  anchorRequests,
                  anchorTokens,
                  "py");
          Distortion pyDistortion = Distortion.ofArrivals(py.arrivals(), simulator.truth());
          simulator.truth().reset();
          // the seed client doing tpot's job as a Python user would: every arrival to Kafka
          PythonAnchor.Result pyKafka = null;
          if (PythonAnchor.canPublish(python.get())) {
            String topic = "b2-python-events";
            BenchTopics.create(env.bootstrapServers(), topic, 3);
            pyKafka =
                PythonAnchor.run(
                    python.get(),
                    env.workDir(),
                    simulator.baseUrl() + "/chat/completions",
                    BenchProfiles.LOGNORMAL,
                    ANCHOR_STREAMS,
                    anchorRequests,
                    anchorTokens,
                    "pyk",
                    List.of(env.bootstrapServers(), topic));
            reportPythonPublishing(
                report, pyKafka, Distortion.ofArrivals(pyKafka.arrivals(), simulator.truth()));
            simulator.truth().reset();
          } else {
            report.note(
                "Python anchor publishing to Kafka skipped: its python3 has no confluent_kafka"
                    + " (apt-get install python3-confluent-kafka)");
          }
          c = c.withPython(py, pyDistortion, pyKafka);
        }
        runInChild(c, own, "b2-side-by-side.log");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (IOException e) {
      throw new IllegalStateException("unreadable report from the producer: " + e.getMessage(), e);
    }
  }

  /** What the runs in a child report against. */
  private record Context(
      BenchEnv env,
      BenchReport report,
      Simulator simulator,
      Optional<String> python,
      int anchorRequests,
      int anchorTokens,
      Duration openFor,
      PythonAnchor.Result py,
      Distortion pyDistortion,
      PythonAnchor.Result pyKafka) {
    Context withPython(
        PythonAnchor.Result result, Distortion distortion, PythonAnchor.Result publishing) {
      return new Context(
          env,
          report,
          simulator,
          python,
          anchorRequests,
          anchorTokens,
          openFor,
          result,
          distortion,
          publishing);
    }
  }

  /** Runs {@code plan} in one producer JVM, one run after the other, and reports each. */
  private static void runInChild(Context c, List<Planned> plan, String log)
      throws IOException, InterruptedException {
    BenchEnv env = c.env();
    BenchReport report = c.report();
    Simulator simulator = c.simulator();
    Optional<String> python = c.python();
    Duration openFor = c.openFor();
    List<ProducerChild.RunSpec> specs = new ArrayList<>();
    for (Planned p : plan) {
      BenchTopics.create(env.bootstrapServers(), p.spec().topic(), 3);
      Map<String, String> keys = new LinkedHashMap<>(p.spec().keys());
      keys.put("base_url", simulator.baseUrl());
      specs.add(new ProducerChild.RunSpec(p.spec().topic(), keys));
    }
    try (ChildJvm child =
        ProducerChild.start(
            env.producerJvmOptions(),
            env.bootstrapServers(),
            0,
            specs,
            env.workDir().resolve(log))) {
      for (int i = 0; i < plan.size(); i++) {
        Planned p = plan.get(i);
        PythonAnchor.Result py = c.py();
        Distortion pyDistortion = c.pyDistortion();
        if (i > 0) {
          child.send("next");
        }
        ChildJvm.Line line = child.await("result", p.length().multipliedBy(6).plusSeconds(90));
        ProducerChild.Result result =
            Json.MAPPER.treeToValue(line.json(), ProducerChild.Result.class);
        if (p.kind() == Kind.WARMUP) {
          report.note(
              "warm-up run: "
                  + BenchReport.count(result.eventsPublished())
                  + " events, until the JIT had settled (not reported)");
        } else {
          EventsTopic events = EventsTopic.read(env.bootstrapServers(), p.spec().topic());
          Distortion d = Distortion.of(events, simulator.truth());
          switch (p.kind()) {
            case OPEN -> {
              if (p.spec().keys().get("rate").equals("50")) {
                report.note(openLoopNote(openFor));
              }
              reportOpenLoop(report, p, result, events);
            }
            case STALL -> reportStall(report, events, simulator.truth(), d);
            case ANCHOR -> {
              reportClosedLoop(report, p, result, events, d);
              reportSideBySide(report, result, events, d, py, pyDistortion, c.pyKafka(), python);
            }
            default -> reportClosedLoop(report, p, result, events, d);
          }
        }
        simulator.truth().reset();
      }
      child.waitFor(Duration.ofSeconds(60));
    }
  }

  private static Planned closed(
      String label, Kind kind, String model, int streams, Duration length) {
    // the JVM is warmed by the first run; each run still warms up its own new path (a new Vert.x,
    // new connections, a new Kafka client) until the JIT is quiet, and is measured after that
    Map<String, String> keys =
        ProducerChild.keys("b2-" + label.replace(" ", ""), model, streams, MAX_TOKENS, RUN_WARMUP);
    keys.put("duration", length.toSeconds() + "s");
    keys.put("stop_grace", "10s");
    return new Planned(
        label,
        kind,
        new ProducerChild.RunSpec(BenchTopics.unique("bench-b2-" + label.replace(" ", "")), keys),
        streams,
        length);
  }

  /**
   * The JVM's warm-up: the producer's own timed warm-up (at least {@code seconds}, then until the
   * JIT has settled), then one second of requests; not reported.
   */
  private static Planned warmup(long seconds) {
    Planned p = closed("warm-up", Kind.WARMUP, BenchProfiles.CONSTANT, 200, Duration.ofSeconds(1));
    p.spec().keys().put("warmup", seconds + "s");
    return new Planned(
        p.label(), p.kind(), p.spec(), p.streams(), Duration.ofSeconds(seconds + 60));
  }

  /** Two requests of constant 5 ms gaps with one 150 ms stall: is the stall measured as sent? */
  private static Planned stall() {
    Map<String, String> keys = ProducerChild.keys("b2-stall", BenchProfiles.STALL, 2, 200, "0");
    keys.put("total_requests", "2");
    return new Planned(
        "stall",
        Kind.STALL,
        new ProducerChild.RunSpec(BenchTopics.unique("bench-b2-stall"), keys),
        2,
        Duration.ofSeconds(3));
  }

  /** The producer's half of the side-by-side comparison with the Python anchor. */
  private static Planned anchor(int requests, int tokens) {
    // a fresh JVM with the producer's default warm-up (local: its requests go to a simulator in
    // the producer's JVM, not to this one); -Dtpot.bench.b2.warmup=10s compares another
    Map<String, String> keys =
        ProducerChild.keys(
            "b2-anchor",
            BenchProfiles.LOGNORMAL,
            ANCHOR_STREAMS,
            tokens,
            System.getProperty("tpot.bench.b2.warmup", "local"));
    keys.put("total_requests", Integer.toString(requests));
    keys.put("stop_grace", "10s");
    // about (TTFT + tokens x 20 ms) per request, requests / streams rounds of them
    Duration length =
        Duration.ofMillis((150 + tokens * 20L) * Math.max(1, requests / ANCHOR_STREAMS));
    return new Planned(
        "tpot x " + ANCHOR_STREAMS,
        Kind.ANCHOR,
        new ProducerChild.RunSpec(BenchTopics.unique("bench-b2-anchor"), keys),
        ANCHOR_STREAMS,
        length);
  }

  private static Planned open(int rate, Duration length) {
    Map<String, String> keys =
        ProducerChild.keys(
            "b2-open-" + rate, BenchProfiles.CONSTANT, OPEN_LOOP_CAP, OPEN_LOOP_TOKENS, RUN_WARMUP);
    keys.put("rate", Integer.toString(rate));
    keys.put("arrival", "poisson");
    keys.put("duration", length.toSeconds() + "s");
    keys.put("stop_grace", "10s");
    return new Planned(
        "open loop " + rate + " req/s",
        Kind.OPEN,
        new ProducerChild.RunSpec(BenchTopics.unique("bench-b2-open-" + rate), keys),
        0,
        length);
  }

  private static void reportClosedLoop(
      BenchReport report, Planned p, ProducerChild.Result r, EventsTopic events, Distortion d) {
    report.headline(
        p.label() + ": |distortion| p50 / p99 / p99.9 / max",
        BenchReport.msPercentiles(d.absolute, 50, 99, 99.9)
            + String.format(
                Locale.ROOT,
                " (%s gaps; mean %+.3f ms)",
                BenchReport.count(d.pairs),
                d.pairs == 0 ? 0 : d.sumNs / (double) d.pairs / 1e6));
    if (d.requestsWithoutTruth > 0) {
      report.note(d.requestsWithoutTruth + " requests had no ground truth kept");
    }
    long fromMs = events.firstStartTsMs + 1000;
    long toMs = events.firstStartTsMs + p.length().toMillis();
    double sustained = events.tokensBetween(fromMs, toMs) / ((toMs - fromMs) / 1000.0);
    report.headline(
        p.label() + ": token events sustained",
        BenchReport.perSecond(sustained, "events")
            + String.format(
                Locale.ROOT,
                " (%,d streams x 50/s = %,d while streaming; TTFTs and request turns pause them)",
                p.streams(),
                p.streams() * 50));
    double cores = r.coresBetween(r.warmupEndMs() + 1000, r.warmupEndMs() + p.length().toMillis());
    report.headline(
        p.label() + ": producer CPU per token",
        String.format(
            Locale.ROOT,
            "%.1f µs (%.2f cores = %.0f%% of the machine, while streaming)",
            cores * 1e6 / Math.max(1, sustained),
            cores,
            100 * cores / r.costs().cores()));
    long suspect = events.suspectIntervals(Distortion.SUSPECT_THRESHOLD_US);
    report.headline(
        p.label() + ": client's own lag (loop lag max / coalesced / suspect heartbeat intervals)",
        String.format(
            Locale.ROOT,
            "%s / %.1f%% of %s token chunks / %d of %d",
            BenchReport.ms(r.loopLagMaxUs()),
            r.tokenChunks() == 0 ? 0.0 : 100.0 * r.coalescedChunks() / r.tokenChunks(),
            BenchReport.count(r.tokenChunks()),
            suspect,
            events.heartbeats.size()));
    report.figure(
        p.label() + ": gaps distorted by more than 1 ms that the client's own lag touched",
        String.format(
            Locale.ROOT,
            "%s of %s (%.1f%%; the rest were silent); of %s touched gaps, %.1f%% were distorted"
                + " that much",
            BenchReport.count(d.distortedTouched),
            BenchReport.count(d.distorted),
            d.distorted == 0 ? 100.0 : 100.0 * d.distortedTouched / d.distorted,
            BenchReport.count(d.touched),
            d.touched == 0 ? 0.0 : 100.0 * d.touchedDistorted / d.touched));
    report.figure(
        p.label() + ": producer's worst own pause",
        BenchReport.ms(r.clientPauseMaxUs())
            + " ("
            + r.costs().gcCount()
            + " GCs, "
            + r.costs().gcMs()
            + " ms in GC)");
    report.figure(
        p.label() + ": requests",
        BenchReport.count(r.completed())
            + " completed, "
            + BenchReport.count(r.failed())
            + " failed"
            + (r.errors().isEmpty() ? "" : " " + r.errors()));
    StringBuilder busiest = new StringBuilder();
    r.costs().cpuMsByThreadGroup().entrySet().stream()
        .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
        .limit(8)
        .forEach(
            e ->
                busiest
                    .append(busiest.length() == 0 ? "" : ", ")
                    .append(e.getKey())
                    .append(' ')
                    .append(e.getValue())
                    .append(" ms"));
    report.note("busiest producer threads (CPU after the run's warm-up): " + busiest);
  }

  private static void reportStall(
      BenchReport report, EventsTopic events, GroundTruth truth, Distortion d) {
    long worstErrorUs = 0;
    StringBuilder each = new StringBuilder();
    for (Map.Entry<String, EventsTopic.Request> e : events.requests.entrySet()) {
      RequestTruth sent = truth.request(e.getKey()).orElse(null);
      if (sent == null || sent.chunks().size() <= 100) {
        continue;
      }
      long measuredNs = e.getValue().elapsedNs(100) - e.getValue().elapsedNs(99);
      long sentNs = sent.chunks().get(100).sentNs() - sent.chunks().get(99).sentNs();
      worstErrorUs = Math.max(worstErrorUs, Math.abs(measuredNs - sentNs) / 1000);
      each.append(each.length() == 0 ? "" : ", ")
          .append(BenchReport.ms(measuredNs / 1000))
          .append(" vs ")
          .append(BenchReport.ms(sentNs / 1000));
    }
    report.headline(
        "stall (5 ms gaps, 150 ms before chunk 100): measured vs sent",
        each
            + String.format(
                Locale.ROOT,
                "; worst error %s; |distortion| p50 %s, max %s over %s gaps",
                BenchReport.ms(worstErrorUs),
                BenchReport.ms(d.absolute.percentileMicros(50)),
                BenchReport.ms(d.absolute.maxMicros()),
                BenchReport.count(d.pairs)));
  }

  /** The seed client publishing every arrival to Kafka: its fidelity, CPU and memory. */
  private static void reportPythonPublishing(
      BenchReport report, PythonAnchor.Result pyKafka, Distortion d) {
    String label = ANCHOR_STREAMS + " streams side by side";
    report.headline(
        label + ": Python aiohttp + Kafka |measured - sent| p99 / p99.9 / max",
        BenchReport.msPercentiles(d.absolute, 99, 99.9)
            + " ("
            + BenchReport.count(d.pairs)
            + " gaps, every arrival published through librdkafka; "
            + pyKafka.errors()
            + " errors)");
    report.headline(
        label + ": Python aiohttp + Kafka CPU and memory",
        String.format(
            Locale.ROOT,
            "%.1f s of process CPU while streaming (%.1f µs per chunk), max RSS %.0f MB",
            pyKafka.cpuNs() / 1e9,
            pyKafka.cpuMicrosPerChunk(),
            pyKafka.maxRssKb() / 1024.0));
  }

  private static void reportSideBySide(
      BenchReport report,
      ProducerChild.Result r,
      EventsTopic events,
      Distortion tpot,
      PythonAnchor.Result py,
      Distortion pyDistortion,
      PythonAnchor.Result pyKafka,
      Optional<String> python) {
    String label = ANCHOR_STREAMS + " streams side by side";
    long tokens = events.tokens;
    report.headline(
        label + ": tpot |measured - sent| p99 / p99.9 / max",
        BenchReport.msPercentiles(tpot.absolute, 99, 99.9)
            + " ("
            + BenchReport.count(tpot.pairs)
            + " gaps, publishing every token to Kafka)");
    long[] cpu = r.cpuNsBetween(r.warmupEndMs(), Long.MAX_VALUE);
    report.headline(
        label + ": tpot CPU per published token",
        String.format(
            Locale.ROOT,
            "%.1f µs (%s token events, %.1f s of process CPU after its warm-up)",
            cpu[0] / 1000.0 / Math.max(1, tokens),
            BenchReport.count(tokens),
            cpu[0] / 1e9));
    long[] warm = r.cpuNsBetween(0, r.warmupEndMs());
    report.headline(
        label + ": tpot warm-up",
        String.format(
            Locale.ROOT,
            "%s requests, %s token chunks, %.1f s, %.1f s of process CPU",
            BenchReport.count(r.warmupRequests()),
            BenchReport.count(r.warmupChunks()),
            r.warmupEndMs() / 1000.0,
            r.warmupEndMs() == 0 ? 0 : warm[0] / 1e9));
    report.headline(
        label + ": tpot whole-process CPU",
        String.format(
                Locale.ROOT,
                "%.1f s from the JVM's start to the run's end (start-up, warm-up, run), %.1f µs per"
                    + " published token%s",
                r.processCpuNs() / 1e9,
                r.processCpuNs() / 1000.0 / Math.max(1, tokens),
                py == null
                    ? ""
                    : String.format(
                        Locale.ROOT,
                        "; %.2f × Python's (%.1f s while streaming, no Kafka)",
                        r.processCpuNs() / (double) Math.max(1, py.cpuNs()),
                        py.cpuNs() / 1e9))
            + (pyKafka == null
                ? ""
                : String.format(
                    Locale.ROOT,
                    "; %.2f × Python's publishing to Kafka (%.1f s)",
                    r.processCpuNs() / (double) Math.max(1, pyKafka.cpuNs()),
                    pyKafka.cpuNs() / 1e9)));
    if (py == null) {
      report.headline(
          label + ": max RSS",
          String.format(
              Locale.ROOT, "tpot %.0f MB (VmHWM at the run's end)", r.maxRssKb() / 1024.0));
      report.note(
          "Python anchor skipped: no python3 with aiohttp"
              + (python.isEmpty() ? " (apt-get install python3-aiohttp)" : ""));
      return;
    }
    report.headline(
        label + ": Python aiohttp |measured - sent| p99 / p99.9 / max",
        BenchReport.msPercentiles(pyDistortion.absolute, 99, 99.9)
            + " ("
            + BenchReport.count(pyDistortion.pairs)
            + " gaps, no Kafka; "
            + py.errors()
            + " errors)");
    report.headline(
        label + ": Python aiohttp CPU per received chunk",
        String.format(
            Locale.ROOT,
            "%.1f µs (%s chunks, %.1f s of process CPU)",
            py.cpuMicrosPerChunk(),
            BenchReport.count(py.chunks()),
            py.cpuNs() / 1e9));
    report.headline(
        label + ": max RSS",
        String.format(
            Locale.ROOT,
            "tpot %.0f MB vs Python %.0f MB (VmHWM of the producer's JVM at the run's end, with"
                + " its local warm-up; Python's VmHWM at its end)",
            r.maxRssKb() / 1024.0,
            py.maxRssKb() / 1024.0));
  }

  private static void reportOpenLoop(
      BenchReport report, Planned p, ProducerChild.Result r, EventsTopic events) {
    LatencyHistogram lag = new LatencyHistogram();
    for (EventsTopic.Request req : events.requests.values()) {
      if (req.scheduleLagNs != null) {
        lag.recordNanos(req.scheduleLagNs);
      }
    }
    report.headline(
        p.label() + ": schedule lag p50 / p99 / max",
        BenchReport.msPercentiles(lag, 50, 99)
            + " ("
            + BenchReport.count(lag.count())
            + " requests"
            + (r.notSent() > 0 ? ", " + r.notSent() + " never sent" : "")
            + ")");
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

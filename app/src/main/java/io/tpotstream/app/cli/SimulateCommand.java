package io.tpotstream.app.cli;

import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.simulator.profile.Profiles;
import io.tpotstream.simulator.truth.TruthSummary;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code tpot simulate}: the LLM API simulator until Ctrl-C or SIGTERM. */
@Command(
    name = "simulate",
    mixinStandardHelpOptions = true,
    header = "An OpenAI/Anthropic-compatible server with known token timing.",
    description = {
      "Run an OpenAI- and Anthropic-compatible streaming server with controlled token timing.",
      "Serves POST .../v1/chat/completions, POST .../v1/messages, GET .../v1/models (under any"
          + " base that ends in /v1, or none; another version or base gets 404), GET /truth"
          + " (what was actually sent) and GET /metrics (an engine's own view, in vLLM's metric"
          + " names: for --engine-metrics)."
    })
final class SimulateCommand implements Callable<Integer> {
  @Mixin ListenPortOptions port = new ListenPortOptions(8000);

  @Option(
      names = "--host",
      defaultValue = "127.0.0.1",
      description = "Address to listen on (default: ${DEFAULT-VALUE}).")
  String host;

  @Option(
      names = "--profiles",
      paramLabel = "FILE",
      description = "JSON file of model profiles, added to the built-in model-a, model-b, model-c.")
  Path profiles;

  @Option(
      names = "--seed",
      paramLabel = "N",
      description = "Seed: the same requests then get the same token texts and gaps.")
  Long seed;

  @Option(
      names = "--truth",
      paramLabel = "FILE",
      description =
          "Append one JSON line per sent chunk (requestId, model, seq, sentNs, tokens,"
              + " intendedNs, pacingErrorNs; on a request's first chunk promptTokens and"
              + " cachedTokens).")
  Path truthFile;

  @Option(
      names = "--api-key",
      paramLabel = "KEY",
      defaultValue = "${env:TPOT_SIMULATOR_API_KEY}",
      description =
          "Answer 401 unless clients send this key (default: $TPOT_SIMULATOR_API_KEY, else any"
              + " key is accepted).")
  String apiKey;

  @Mixin EventLoopsOptions eventLoops;

  @Option(
      names = "--prefix-cache-blocks",
      paramLabel = "N",
      defaultValue = "65536",
      description =
          "Prompt blocks the prefix cache holds, least recently used evicted first, shared by the"
              + " models (blocks of a profile's prefixBlockTokens, 16 by default: 65,536 blocks"
              + " hold 1,048,576 tokens); cached tokens are reported as cached_tokens and"
              + " cache_read_input_tokens. 0 turns the cache off and reports none"
              + " (default: ${DEFAULT-VALUE}).")
  int prefixCacheBlocks;

  @Option(
      names = "--realtime",
      description =
          "Opt in to real-time priority (SCHED_FIFO 1) for the event loops' own threads where"
              + " Linux allows it (CAP_SYS_NICE); elsewhere they stay at normal priority and the"
              + " Pacing line says so. Default: normal priority; no other process is touched.")
  boolean realtime;

  @Override
  public Integer call() throws InterruptedException {
    SimulatorConfig config =
        SimulatorConfig.defaults()
            .withHost(host)
            .withPort(port.port)
            .withSeed(seed)
            .withTruthFile(truthFile)
            .withApiKey(apiKey == null || apiKey.isBlank() ? null : apiKey)
            .withRealtimeLoops(realtime)
            .withPrefixCacheBlocks(prefixCacheBlocks);
    if (profiles != null) {
      config = config.withProfiles(Profiles.load(profiles));
    }
    if (eventLoops.eventLoops != null) {
      config = config.withEventLoops(eventLoops.eventLoops);
    }
    Simulator simulator = Simulator.start(config);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  System.out.println("Stopping the simulator");
                  TruthSummary.lines(simulator.truth().report()).forEach(System.out::println);
                  simulator.close();
                  stopped.countDown();
                },
                "simulator-stop"));
    System.out.println("Simulator listening on " + simulator.baseUrl());
    System.out.println(
        "Models: "
            + String.join(", ", Profiles.names(config.profiles()))
            + "  (OpenAI base URL "
            + simulator.openAiBaseUrl()
            + ")");
    System.out.println(
        "Seed: " + simulator.seed() + (seed == null ? " (repeat this run with --seed)" : ""));
    simulator.notes().forEach(note -> System.out.println("Pacing: " + note));
    System.out.println(
        config.prefixCacheBlocks() == 0
            ? "Prefix cache: off (no cached tokens reported)"
            : String.format(
                "Prefix cache: %,d blocks, shared by the models (--prefix-cache-blocks 0 turns"
                    + " it off)",
                config.prefixCacheBlocks()));
    if (truthFile != null) {
      System.out.println("Ground truth: appending to " + truthFile);
    }
    System.out.println(
        (config.apiKey() == null ? "Any API key is accepted." : "An API key is required.")
            + " Ctrl-C to stop.");
    System.out.flush();
    stopped.await();
    return 0;
  }
}

package io.tpotstream.app.cli;

import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The load's shape as flags over the config keys, the same for {@code produce} and {@code run}:
 * concurrency, requests, tokens, open-loop rate and arrivals, duration, warm-up. Each flag sets the
 * config key its name spells ({@link ProducerConfigOptions#putConfigKeys}).
 */
final class LoadOptions {
  @Option(names = "--concurrency", description = "Config key concurrency.")
  Integer concurrency;

  @Option(names = "--total-requests", description = "Config key total_requests (per model).")
  Integer totalRequests;

  @Option(names = "--max-tokens", description = "Config key max_tokens.")
  Integer maxTokens;

  @Option(
      names = "--ignore-eos",
      description =
          "Config key ignore_eos: also send min_tokens = max_tokens and ignore_eos (vLLM, SGLang),"
              + " so that the server streams exactly the length asked; OpenAI's API refuses them.")
  Boolean ignoreEos;

  @Option(names = "--rate", description = "Config key rate: open-loop requests per second.")
  Double rate;

  @Option(names = "--arrival", description = "Config key arrival: constant or poisson.")
  String arrival;

  @Option(names = "--duration", description = "Config key duration: e.g. 90s, 10m, forever.")
  String duration;

  @Option(
      names = "--warmup",
      description =
          "Config key warmup: local (the default: the JIT warms against a loopback server,"
              + " no request to the endpoint), 10s or 50req to warm the endpoint's connections"
              + " too (those requests are left out of every statistic), or 0 for none.")
  String warmup;

  @Spec CommandSpec spec;

  /** Puts the flags given into {@code flags}, by config key. */
  void putInto(Map<String, String> flags) {
    ProducerConfigOptions.putConfigKeys(spec, flags);
  }
}

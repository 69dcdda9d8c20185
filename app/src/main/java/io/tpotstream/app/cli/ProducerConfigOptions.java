package io.tpotstream.app.cli;

import io.tpotstream.producer.config.ConfigLoader;
import io.tpotstream.producer.config.ProducerConfig;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

/** The producer config file and the flags that override its keys, shared by produce and models. */
final class ProducerConfigOptions {
  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "JSON config (the seed script's format plus extensions; see docs/producer.md).")
  Path config;

  @Option(
      names = "--set",
      paramLabel = "KEY=VALUE",
      description =
          "Override any config key (repeatable); dotted keys reach into objects, e.g."
              + " --set timeouts.idle=5s --set labels.target=gateway-a.")
  Map<String, String> set = new LinkedHashMap<>();

  @Option(names = "--base-url", description = "Config key base_url.")
  String baseUrl;

  @Option(names = "--api", description = "Config key api: openai or anthropic.")
  String api;

  @Option(
      names = "--models",
      split = ",",
      paramLabel = "MODEL",
      description = "Config key models, comma-separated.")
  java.util.List<String> models;

  @Mixin ClientTlsOptions tls;

  /** The overrides, dedicated flags last so they win over --set. */
  Map<String, String> overrides(Map<String, String> more) {
    Map<String, String> all = new LinkedHashMap<>(set);
    put(all, "base_url", baseUrl);
    put(all, "api", api);
    if (models != null) {
      all.put("models", String.join(",", models));
    }
    tls.putInto(all);
    more.forEach((k, v) -> put(all, k, v));
    return all;
  }

  ProducerConfig load(Map<String, String> more) {
    return ConfigLoader.load(
        config,
        overrides(more),
        System.getenv(),
        warning -> System.err.println("tpot: warning: " + warning));
  }

  ProducerConfig loadForListing() {
    return ConfigLoader.loadForListing(
        config,
        overrides(Map.of()),
        System.getenv(),
        warning -> System.err.println("tpot: warning: " + warning));
  }

  /** A config from overrides alone, without reading API keys from the environment (the demo). */
  static ProducerConfig loadDemo(Map<String, String> overrides) {
    return ConfigLoader.load(
        null, overrides, Map.of(), warning -> System.err.println("tpot: warning: " + warning));
  }

  /**
   * Puts every option of {@code mixin} that was given into {@code keys} under the config key its
   * name spells, the one rule of the flags that stand for a config key: {@code --max-tokens} sets
   * {@code max_tokens}. The options of a mixin within {@code mixin} are not config keys.
   */
  static void putConfigKeys(CommandSpec mixin, Map<String, String> keys) {
    Set<OptionSpec> nested = new HashSet<>();
    mixin.mixins().values().forEach(inner -> nested.addAll(inner.options()));
    for (OptionSpec option : mixin.options()) {
      if (!nested.contains(option)) {
        put(keys, option.longestName().substring(2).replace('-', '_'), option.getValue());
      }
    }
  }

  static void put(Map<String, String> map, String key, Object value) {
    if (value != null) {
      map.put(key, value.toString());
    }
  }
}

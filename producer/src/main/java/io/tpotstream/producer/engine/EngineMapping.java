package io.tpotstream.producer.engine;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Nearest;
import io.tpotstream.producer.config.ConfigException;
import io.tpotstream.producer.config.ConfigJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Which of an engine's Prometheus metrics mean what (docs/producer.md, "The engine's own view"):
 * the histograms of inter-token latency, time to first token, end-to-end latency and queue time,
 * the gauges of running and waiting requests and KV-cache usage, the counters of prefix-cache
 * queries and hits, and the label that names the model. Each metric may have several names, the
 * current one first and older ones after: a scrape reads the first the endpoint publishes. Built
 * in: {@link #VLLM}, {@link #SGLANG}, {@link #TGI}; any other engine through a JSON file ({@link
 * #read}).
 *
 * @param name what the engine events call it ({@code mapping})
 * @param modelLabel the label naming the model, or null: the engine serves one model
 * @param histogramUnit what a histogram's {@code le} counts: seconds or milliseconds
 */
public record EngineMapping(
    String name,
    String modelLabel,
    Unit histogramUnit,
    List<String> tpot,
    List<String> ttft,
    List<String> e2e,
    List<String> queue,
    List<String> running,
    List<String> waiting,
    List<String> kvCacheUsage,
    List<String> prefixQueries,
    List<String> prefixHits) {

  /** The unit of a histogram's bucket bounds. */
  public enum Unit {
    SECONDS(1_000_000),
    MILLISECONDS(1_000);

    final long micros;

    Unit(long micros) {
      this.micros = micros;
    }
  }

  /**
   * vLLM (V1 engine, 0.7 to 0.11; the older names of 0.6): {@code model_name} label; histograms in
   * seconds; the KV-cache gauge is a fraction (0..1) despite its name.
   */
  public static final EngineMapping VLLM =
      new EngineMapping(
          "vllm",
          "model_name",
          Unit.SECONDS,
          List.of("vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds"),
          List.of("vllm:time_to_first_token_seconds"),
          List.of("vllm:e2e_request_latency_seconds"),
          List.of("vllm:request_queue_time_seconds"),
          List.of("vllm:num_requests_running"),
          List.of("vllm:num_requests_waiting"),
          List.of("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"),
          List.of("vllm:prefix_cache_queries", "vllm:gpu_prefix_cache_queries"),
          List.of("vllm:prefix_cache_hits", "vllm:gpu_prefix_cache_hits"));

  /**
   * SGLang (0.4 and later): {@code model_name} label; no prefix-cache counters (its {@code
   * sglang:cache_hit_rate} is a gauge over its own span, so the window's hit rate is not
   * published).
   */
  public static final EngineMapping SGLANG =
      new EngineMapping(
          "sglang",
          "model_name",
          Unit.SECONDS,
          List.of("sglang:inter_token_latency_seconds", "sglang:time_per_output_token_seconds"),
          List.of("sglang:time_to_first_token_seconds"),
          List.of("sglang:e2e_request_latency_seconds"),
          List.of("sglang:queue_time_seconds"),
          List.of("sglang:num_running_reqs"),
          List.of("sglang:num_queue_reqs"),
          List.of("sglang:token_usage"),
          List.of(),
          List.of());

  /**
   * Hugging Face TGI (2.x and 3.x): one model, no model label; no time-to-first-token histogram;
   * its per-token histogram is each request's mean time per token, not each token's.
   */
  public static final EngineMapping TGI =
      new EngineMapping(
          "tgi",
          null,
          Unit.SECONDS,
          List.of("tgi_request_mean_time_per_token_duration"),
          List.of(),
          List.of("tgi_request_duration"),
          List.of("tgi_request_queue_duration"),
          List.of("tgi_batch_current_size"),
          List.of("tgi_queue_size"),
          List.of(),
          List.of(),
          List.of());

  /** The built-in mappings, in the order {@code auto} tries them. */
  public static final List<EngineMapping> BUILT_IN = List.of(VLLM, SGLANG, TGI);

  /** The mapping chosen by the metric names the first good scrape shows. */
  public static final String AUTO = "auto";

  /** The largest mapping file read. */
  static final int MAX_FILE_BYTES = 64 << 10;

  private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
  private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
  private static final Pattern MAPPING_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
  private static final List<String> METRIC_KEYS =
      List.of(
          "tpot",
          "ttft",
          "e2e",
          "queue",
          "running",
          "waiting",
          "kv_cache_usage",
          "prefix_queries",
          "prefix_hits");
  private static final Set<String> FILE_KEYS = fileKeys();

  public EngineMapping {
    tpot = List.copyOf(tpot);
    ttft = List.copyOf(ttft);
    e2e = List.copyOf(e2e);
    queue = List.copyOf(queue);
    running = List.copyOf(running);
    waiting = List.copyOf(waiting);
    kvCacheUsage = List.copyOf(kvCacheUsage);
    prefixQueries = List.copyOf(prefixQueries);
    prefixHits = List.copyOf(prefixHits);
  }

  /**
   * The mapping {@code value} names: {@code vllm}, {@code sglang}, {@code tgi}, null for {@code
   * auto}, else a mapping file (relative to {@code baseDir}) read with {@link #read}.
   *
   * @param key where the value was given, for messages (e.g. {@code config key 'engine_mapping'})
   * @throws ConfigException naming {@code key} and what is wrong
   */
  public static EngineMapping named(String value, String key, Path baseDir) {
    String v = value == null ? AUTO : value.trim();
    if (isBuiltIn(v)) {
      return builtIn(v);
    }
    Path file = baseDir.resolve(v);
    if (!Files.isRegularFile(file)) {
      throw new ConfigException(
          key
              + ": '"
              + v
              + "' is neither vllm, sglang, tgi nor auto, and no such file (a mapping file:"
              + " docs/producer.md, \"The engine's own view\")");
    }
    return read(file);
  }

  /** True when {@code value} names a built-in mapping or {@code auto} (or is empty), not a file. */
  public static boolean isBuiltIn(String value) {
    String v = value.trim();
    return v.isEmpty() || v.equalsIgnoreCase(AUTO) || builtIn(v) != null;
  }

  /** The built-in mapping named {@code name} (any case), or null ({@code auto}, or none). */
  private static EngineMapping builtIn(String name) {
    for (EngineMapping m : BUILT_IN) {
      if (m.name.equalsIgnoreCase(name)) {
        return m;
      }
    }
    return null;
  }

  /**
   * A mapping file: a JSON object with {@code name}, optional {@code model_label} and {@code unit}
   * ({@code seconds} or {@code milliseconds}, for histogram bounds), and at least one of {@code
   * tpot}, {@code ttft}, {@code e2e}, {@code queue} (histograms), {@code running}, {@code waiting},
   * {@code kv_cache_usage} (gauges), {@code prefix_queries}, {@code prefix_hits} (counters), each a
   * metric name or a list of names (the first published is read).
   *
   * @throws ConfigException naming the file and what is wrong, in one line
   */
  public static EngineMapping read(Path file) {
    String where = "engine mapping file " + file;
    try {
      if (Files.size(file) > MAX_FILE_BYTES) {
        throw new ConfigException(
            where
                + ": larger than "
                + ExpositionParser.size(MAX_FILE_BYTES)
                + "; is it a mapping?");
      }
    } catch (IOException e) {
      throw new ConfigException("cannot read " + where + ": " + e.getMessage());
    }
    JsonNode root = ConfigJson.readObject(file, where);
    for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!FILE_KEYS.contains(key)) {
        throw new ConfigException(
            where
                + ": key '"
                + key
                + "' is not known"
                + Nearest.of(key, new TreeSet<>(FILE_KEYS))
                    .map(k -> " (did you mean '" + k + "'?)")
                    .orElse(" (keys: " + String.join(", ", new TreeSet<>(FILE_KEYS)) + ")"));
      }
    }
    String name = text(root, "name", where);
    if (name == null || !MAPPING_NAME.matcher(name).matches()) {
      throw new ConfigException(
          where + ": key 'name' must be 1 to 64 letters, digits, '_', '.' or '-', e.g. my-engine");
    }
    String modelLabel = text(root, "model_label", where);
    if (modelLabel != null && !LABEL_NAME.matcher(modelLabel).matches()) {
      throw new ConfigException(
          where + ": key 'model_label': '" + modelLabel + "' is not a Prometheus label name");
    }
    String unitText = text(root, "unit", where);
    Unit unit;
    if (unitText == null || unitText.equalsIgnoreCase("seconds")) {
      unit = Unit.SECONDS;
    } else if (unitText.equalsIgnoreCase("milliseconds")) {
      unit = Unit.MILLISECONDS;
    } else {
      throw new ConfigException(
          where + ": key 'unit' must be seconds or milliseconds, got '" + unitText + "'");
    }
    List<List<String>> metrics = new ArrayList<>();
    for (String key : METRIC_KEYS) {
      metrics.add(names(root.get(key), key, where));
    }
    if (metrics.stream().allMatch(List::isEmpty)) {
      throw new ConfigException(
          where + ": names no metric: give at least one of " + String.join(", ", METRIC_KEYS));
    }
    return new EngineMapping(
        name,
        modelLabel,
        unit,
        metrics.get(0),
        metrics.get(1),
        metrics.get(2),
        metrics.get(3),
        metrics.get(4),
        metrics.get(5),
        metrics.get(6),
        metrics.get(7),
        metrics.get(8));
  }

  /**
   * The built-in mapping whose metrics {@code exposition} holds the most of (at least one), or null
   * when it holds none of any: {@code auto}'s choice.
   */
  public static EngineMapping detect(Exposition exposition) {
    EngineMapping best = null;
    int bestFound = 0;
    for (EngineMapping m : BUILT_IN) {
      int found = 0;
      for (List<String> names : m.metrics()) {
        if (m.present(names, exposition) != null) {
          found++;
        }
      }
      if (found > bestFound) {
        best = m;
        bestFound = found;
      }
    }
    return best;
  }

  /** Every metric family name of every built-in mapping (what {@code auto} keeps of a body). */
  public static Set<String> builtInNames() {
    Set<String> all = new LinkedHashSet<>();
    BUILT_IN.forEach(m -> all.addAll(m.allNames()));
    return all;
  }

  /** Every metric family name this mapping reads. */
  public Set<String> allNames() {
    Set<String> all = new LinkedHashSet<>();
    metrics().forEach(all::addAll);
    return all;
  }

  /** The metrics in the order of the file's keys. */
  List<List<String>> metrics() {
    return List.of(
        tpot, ttft, e2e, queue, running, waiting, kvCacheUsage, prefixQueries, prefixHits);
  }

  /**
   * The first of {@code names} whose family {@code exposition} holds, or null (none of them, or
   * none mapped).
   */
  String present(List<String> names, Exposition exposition) {
    for (String n : names) {
      if (exposition.hasFamily(n)) {
        return n;
      }
    }
    return null;
  }

  private static List<String> names(JsonNode node, String key, String where) {
    if (node == null || node.isNull()) {
      return List.of();
    }
    List<String> names = new ArrayList<>();
    if (node.isTextual()) {
      names.add(node.asText().trim());
    } else if (node.isArray()) {
      for (JsonNode n : node) {
        if (!n.isTextual()) {
          throw new ConfigException(
              where + ": key '" + key + "': every entry must be a metric name, got " + n);
        }
        names.add(n.asText().trim());
      }
    } else {
      throw new ConfigException(
          where + ": key '" + key + "' must be a metric name or a list of names, got " + node);
    }
    for (String n : names) {
      if (!METRIC_NAME.matcher(n).matches()) {
        throw new ConfigException(
            where
                + ": key '"
                + key
                + "': '"
                + (n.length() > 80 ? n.substring(0, 80) + "…" : n)
                + "' is not a Prometheus metric name");
      }
    }
    return List.copyOf(names);
  }

  private static String text(JsonNode root, String key, String where) {
    JsonNode n = root.get(key);
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isTextual()) {
      throw new ConfigException(where + ": key '" + key + "' must be a string, got " + n);
    }
    return n.asText().trim();
  }

  private static Set<String> fileKeys() {
    Set<String> keys = new LinkedHashSet<>(List.of("name", "model_label", "unit"));
    keys.addAll(METRIC_KEYS);
    return Set.copyOf(keys);
  }
}

package io.tpotstream.producer.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.tpotstream.common.Json;
import io.tpotstream.common.event.TokenEventBounds;
import io.tpotstream.common.secret.Secrets;
import io.tpotstream.producer.config.ConfigDurations;
import io.tpotstream.producer.config.ConfigException;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What {@code --engine-metrics} asks for (config keys {@code engine_metrics}, {@code
 * engine_metrics_interval}, {@code engine_mapping}): the engines' Prometheus endpoints to scrape,
 * each with the mapping of its metric names (null: {@code auto}) and the model it serves when the
 * user said so, and how often to scrape them. The one reader of these keys and flags, for the
 * producer's config and the proxy's flags alike.
 *
 * @param targets the endpoints, in the order given (none: no scraping)
 * @param interval between scrapes (at least 1 s)
 * @param intervalGiven true when the user chose the interval ({@code tpot run} otherwise fits it to
 *     a window shorter than the default)
 */
public record EngineSettings(List<Target> targets, Duration interval, boolean intervalGiven) {
  /** Between scrapes unless said otherwise. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(5);

  /** The shortest interval between scrapes. */
  public static final Duration MIN_INTERVAL = Duration.ofSeconds(1);

  /** The most endpoints one producer scrapes. */
  public static final int MAX_TARGETS = 16;

  /** No engine scraped. */
  public static final EngineSettings NONE = new EngineSettings(List.of(), DEFAULT_INTERVAL, false);

  private static final Set<String> OBJECT_KEYS = Set.of("url", "model", "mapping");

  /**
   * One endpoint.
   *
   * @param url the metrics URL as given (it may hold secrets: print it through {@link Secrets})
   * @param model the model it serves, as the run names it, or null: found from its model label
   * @param mapping its metric names, or null: {@code auto}
   */
  public record Target(URI url, String model, EngineMapping mapping) {}

  public EngineSettings {
    targets = List.copyOf(targets);
  }

  /** True when some endpoint is to be scraped. */
  public boolean enabled() {
    return !targets.isEmpty();
  }

  /**
   * The settings of the config keys: {@code targets} ({@code engine_metrics}: a comma-separated
   * string of URLs, a list of URLs, or a list of objects {@code {"url", "model", "mapping"}}),
   * {@code interval} ({@code engine_metrics_interval}, null: the default) and {@code mapping}
   * ({@code engine_mapping}: vllm, sglang, tgi, auto or a mapping file under {@code baseDir}).
   *
   * @throws ConfigException naming the key and what is wrong, in one line
   */
  public static EngineSettings of(
      JsonNode targets, Duration interval, String mapping, Path baseDir) {
    return of(targets, interval, mapping, baseDir, false);
  }

  /** As {@link #of(JsonNode, Duration, String, Path)}; {@code flags}: messages name the flags. */
  private static EngineSettings of(
      JsonNode targets, Duration interval, String mapping, Path baseDir, boolean flags) {
    Keys k = new Keys(flags);
    boolean none = targets == null || targets.isNull();
    if (none) {
      if (interval != null || mapping != null) {
        throw new ConfigException(
            k.name(interval != null ? "engine_metrics_interval" : "engine_mapping")
                + " needs "
                + k.name("engine_metrics")
                + " (--engine-metrics URL)");
      }
      return NONE;
    }
    if (interval != null && interval.compareTo(MIN_INTERVAL) < 0) {
      throw new ConfigException(
          k.name("engine_metrics_interval")
              + ": at least 1s (an engine's histograms change"
              + " little faster), got "
              + ConfigDurations.format(interval));
    }
    EngineMapping common = EngineMapping.named(mapping, k.name("engine_mapping"), baseDir);
    List<Target> list = new ArrayList<>();
    if (targets.isTextual()) {
      for (String url : targets.asText().split(",")) {
        if (!url.isBlank()) {
          list.add(new Target(url(url, k.name("engine_metrics")), null, common));
        }
      }
    } else if (targets.isArray() || targets.isObject()) {
      int i = 0;
      for (JsonNode t : targets.isArray() ? targets : List.of(targets)) {
        list.add(target(t, k.name("engine_metrics[" + i++ + "]"), common, baseDir));
      }
    } else {
      throw new ConfigException(
          k.name("engine_metrics")
              + ": must be a URL, a list of URLs or of objects"
              + " {\"url\": ..., \"model\": ..., \"mapping\": ...}, got "
              + targets.getNodeType().toString().toLowerCase(Locale.ROOT));
    }
    if (list.isEmpty()) {
      throw new ConfigException(
          k.name("engine_metrics") + ": no URL given (e.g. http://127.0.0.1:8000/metrics)");
    }
    if (list.size() > MAX_TARGETS) {
      throw new ConfigException(
          k.name("engine_metrics")
              + ": "
              + list.size()
              + " endpoints, more than "
              + MAX_TARGETS
              + " (one producer scrapes at most that many)");
    }
    return new EngineSettings(
        list, interval == null ? DEFAULT_INTERVAL : interval, interval != null);
  }

  /**
   * The settings of the proxy's flags: {@code targets} as {@code --engine-metrics} gave it (URLs,
   * comma-separated, or the config key's JSON list), {@code interval} and {@code mapping} (null:
   * their defaults); relative mapping files from the working directory.
   */
  public static EngineSettings ofFlags(String targets, String interval, String mapping) {
    return ofFlags(targets, interval == null ? null : flagDuration(interval), mapping);
  }

  /** {@code --engine-metrics-interval} as written: 5s, 500ms, 1m (a bare number is seconds). */
  private static Duration flagDuration(String text) {
    try {
      return io.tpotstream.common.Durations.parse("--engine-metrics-interval", text.trim());
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "--engine-metrics-interval: cannot read '" + text + "' as a duration (use e.g. 5s, 10s)");
    }
  }

  private static EngineSettings ofFlags(String targets, Duration interval, String mapping) {
    if (targets == null) {
      return of(null, interval, mapping, Path.of("."), true);
    }
    String t = targets.trim();
    JsonNode node;
    if (t.startsWith("[") || t.startsWith("{")) {
      try {
        node = Json.MAPPER.readTree(t);
      } catch (IOException e) {
        throw new ConfigException(
            "--engine-metrics: starts like JSON but is not: give URLs, comma-separated, or a JSON"
                + " list of {\"url\": ..., \"model\": ...}");
      }
    } else {
      node = TextNode.valueOf(t);
    }
    return of(node, interval, mapping, Path.of("."), true);
  }

  /**
   * These settings for {@code tpot run}'s windows of {@code window}: an interval the user did not
   * choose becomes the window when that is shorter; one longer than the window is refused, as no
   * window could hold a whole interval.
   *
   * @throws ConfigException when the interval cannot fit the window
   */
  public EngineSettings forWindow(Duration window) {
    if (!enabled()) {
      return this;
    }
    if (window.compareTo(MIN_INTERVAL) < 0) {
      throw new ConfigException(
          "--engine-metrics needs windows of at least 1s (engines are scraped at most once a"
              + " second), got --window "
              + ConfigDurations.format(window));
    }
    if (!intervalGiven) {
      return window.compareTo(interval) < 0 ? new EngineSettings(targets, window, false) : this;
    }
    if (interval.compareTo(window) > 0) {
      throw new ConfigException(
          "--engine-metrics-interval ("
              + ConfigDurations.format(interval)
              + ") is longer than --window "
              + ConfigDurations.format(window)
              + ": each window needs a scrape; make it at most the window, ideally a divisor of"
              + " it");
    }
    return this;
  }

  /**
   * A warning when the windows of {@code window} are not a whole number of intervals (some scrape
   * intervals then straddle two windows and count in the later), else null.
   */
  public String windowWarning(Duration window) {
    if (!enabled() || window.toMillis() % interval.toMillis() == 0) {
      return null;
    }
    return "engine metrics are scraped every "
        + ConfigDurations.format(interval)
        + ", which does not divide --window "
        + ConfigDurations.format(window)
        + ": some scrape intervals straddle two windows and count in the later one";
  }

  /** One entry of the list; {@code where} names it, e.g. {@code config key 'engine_metrics[0]'}. */
  private static Target target(JsonNode t, String where, EngineMapping common, Path baseDir) {
    if (t.isTextual()) {
      return new Target(url(t.asText(), where), null, common);
    }
    if (!t.isObject()) {
      throw new ConfigException(
          where + ": must be a URL or an object {\"url\": ..., \"model\": ...}");
    }
    for (Iterator<String> it = t.fieldNames(); it.hasNext(); ) {
      String field = it.next();
      if (!OBJECT_KEYS.contains(field)) {
        throw new ConfigException(
            where + ": key '" + field + "' is not known (use url, model, mapping)");
      }
    }
    JsonNode url = t.get("url");
    if (url == null || !url.isTextual()) {
      throw new ConfigException(where + ": 'url' missing, or not a string");
    }
    String model = null;
    JsonNode m = t.get("model");
    if (m != null && !m.isNull()) {
      if (!m.isTextual() || m.asText().isBlank()) {
        throw new ConfigException(where + ": 'model' must be a model id string");
      }
      model = m.asText().trim();
      int chars = model.codePointCount(0, model.length());
      if (chars > TokenEventBounds.MAX_MODEL_CHARS) {
        throw new ConfigException(
            where
                + ": 'model' of "
                + chars
                + " characters, more than "
                + TokenEventBounds.MAX_MODEL_CHARS);
      }
    }
    JsonNode mapping = t.get("mapping");
    EngineMapping own = common;
    if (mapping != null && !mapping.isNull()) {
      if (!mapping.isTextual()) {
        throw new ConfigException(where + ": 'mapping' must be vllm, sglang, tgi, auto or a file");
      }
      own = EngineMapping.named(mapping.asText(), where + ": 'mapping'", baseDir);
    }
    return new Target(url(url.asText(), where), model, own);
  }

  /** A metrics URL: http or https, with a host, no fragment; printed masked in messages. */
  static URI url(String text, String where) {
    String raw = text.trim();
    String shown = Secrets.NONE.url(raw);
    URI uri;
    try {
      uri = new URI(raw);
    } catch (URISyntaxException e) {
      throw new ConfigException(where + ": '" + shown + "' is not a URL");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
      throw new ConfigException(
          where
              + ": '"
              + shown
              + "' must be an http:// or https:// URL with a host, e.g."
              + " http://127.0.0.1:8000/metrics");
    }
    if (uri.getRawFragment() != null) {
      throw new ConfigException(where + ": '" + shown + "' must not have a #");
    }
    if (uri.getRawPath() == null || uri.getRawPath().isEmpty()) {
      return URI.create(
          scheme
              + "://"
              + uri.getRawAuthority()
              + "/metrics"
              + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery()));
    }
    return uri;
  }

  /** How messages name a key: as the config key, or as the flag that stands for it. */
  private record Keys(boolean flags) {
    String name(String key) {
      return flags ? "--" + key.replace('_', '-') : "config key '" + key + "'";
    }
  }
}

package io.tpotstream.producer.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.tpotstream.common.Json;
import io.tpotstream.producer.workload.Traffic;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * Reads the producer's JSON config (the seed script's format plus extensions), applies {@code
 * key=value} overrides, takes the key from the environment when the file has none, and validates
 * every value with a message naming the key.
 */
public final class ConfigLoader {
  /** Every key the loader understands; any other key is reported and ignored. */
  public static final Set<String> KEYS =
      Set.of(
          "base_url",
          "api_key",
          "models",
          "concurrency",
          "total_requests",
          "max_tokens",
          "prompt",
          "timeout",
          "api",
          "rate",
          "arrival",
          "seed",
          "duration",
          "prompts_file",
          "labels",
          "include_usage",
          "continuous_usage",
          "headers",
          "extra_body",
          "timeouts",
          "run_id",
          "stop_grace",
          "proxy",
          "anthropic_version",
          "dataset",
          "input_len",
          "output_len",
          "schedule",
          "sweep",
          "warmup");

  static final String DEFAULT_PROMPT =
      "Write a long, detailed story about a lighthouse keeper who finds a message in a bottle.";
  static final int DEFAULT_CONCURRENCY = 10;
  static final int DEFAULT_TOTAL_REQUESTS = 200;
  static final int DEFAULT_MAX_TOKENS = 256;
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);
  static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
  static final Duration DEFAULT_STOP_GRACE = Duration.ofSeconds(3);
  static final String DEFAULT_ANTHROPIC_VERSION = "2023-06-01";

  private ConfigLoader() {}

  /**
   * Loads {@code file} (may be null: then every key comes from {@code overrides}), applies the
   * overrides ({@code key} or dotted {@code key.sub} to a value, JSON or plain text), and reads the
   * key and proxy from {@code env}.
   *
   * @param warnings receives one line per ignored key
   */
  public static ProducerConfig load(
      Path file,
      Map<String, String> overrides,
      Map<String, String> env,
      Consumer<String> warnings) {
    return bind(withOverrides(file, overrides), env, baseDir(file), warnings);
  }

  /** As {@link #load}, for commands that need no model list ({@code tpot models}). */
  public static ProducerConfig loadForListing(
      Path file,
      Map<String, String> overrides,
      Map<String, String> env,
      Consumer<String> warnings) {
    ObjectNode root = withOverrides(file, overrides);
    if (!root.hasNonNull("models")) {
      root.put("models", "(none)");
    }
    return bind(root, env, baseDir(file), warnings);
  }

  /** {@code file}'s object (an empty one when there is no file) with {@code overrides} applied. */
  private static ObjectNode withOverrides(Path file, Map<String, String> overrides) {
    ObjectNode root = file == null ? JsonNodeFactory.instance.objectNode() : read(file);
    applyOverrides(root, overrides);
    return root;
  }

  /** Where the config's relative paths start: the file's folder, else the working directory. */
  private static Path baseDir(Path file) {
    return file == null ? Path.of(".") : file.toAbsolutePath().getParent();
  }

  /** Reads a config file into a JSON object. */
  static ObjectNode read(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new ConfigException("config file " + file + " not found: check --config");
    }
    JsonNode node;
    try {
      node = Json.MAPPER.readTree(file.toFile());
    } catch (IOException e) {
      throw new ConfigException(
          "config file " + file + " is not valid JSON: " + firstLine(e.getMessage()));
    }
    if (!(node instanceof ObjectNode object)) {
      throw new ConfigException("config file " + file + " must hold one JSON object");
    }
    return object;
  }

  /** Sets {@code key=value} pairs into {@code root}; dotted keys reach into objects. */
  static void applyOverrides(ObjectNode root, Map<String, String> overrides) {
    for (Map.Entry<String, String> e : overrides.entrySet()) {
      String[] path = e.getKey().trim().split("\\.");
      ObjectNode target = root;
      for (int i = 0; i < path.length - 1; i++) {
        JsonNode child = target.get(path[i]);
        if (!(child instanceof ObjectNode)) {
          child = target.putObject(path[i]);
        }
        target = (ObjectNode) child;
      }
      target.set(path[path.length - 1], overrideValue(e.getValue()));
    }
  }

  private static JsonNode overrideValue(String text) {
    String t = text.trim();
    if (t.startsWith("{") || t.startsWith("[") || t.startsWith("\"") || looksScalar(t)) {
      try {
        return Json.MAPPER.readTree(t);
      } catch (IOException e) {
        return TextNode.valueOf(text);
      }
    }
    return TextNode.valueOf(text);
  }

  private static boolean looksScalar(String t) {
    return t.equals("true")
        || t.equals("false")
        || t.equals("null")
        || t.matches("-?\\d+(\\.\\d+)?([eE][-+]?\\d+)?");
  }

  static ProducerConfig bind(
      ObjectNode root, Map<String, String> env, Path baseDir, Consumer<String> warnings) {
    for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!KEYS.contains(key)) {
        warnings.accept("config key '" + key + "' is not known and is ignored");
      }
    }
    ApiKind api = has(root, "api") ? ApiKind.parse(text(root, "api")) : null;
    URI target = baseUrl(root);
    if (api == null) {
      api =
          target.getHost() != null && target.getHost().endsWith("anthropic.com")
              ? ApiKind.ANTHROPIC
              : ApiKind.OPENAI;
    }
    ApiKey key = apiKey(root, env, api);
    List<String> models = models(root);

    long seed = has(root, "seed") ? integer(root, "seed") : ThreadLocalRandom.current().nextLong();
    if (has(root, "dataset") && has(root, "prompts_file")) {
      throw new ConfigException(
          "config keys 'dataset' and 'prompts_file' are the same thing: keep one");
    }
    String datasetKey = has(root, "dataset") ? "dataset" : "prompts_file";
    Traffic traffic =
        Traffic.of(
            datasetKey,
            optionalText(root, datasetKey),
            optionalText(root, "input_len"),
            optionalText(root, "output_len"),
            optionalText(root, "schedule"),
            optionalText(root, "sweep"),
            has(root, "rate"),
            baseDir,
            seed,
            has(root, "prompt") ? text(root, "prompt") : DEFAULT_PROMPT,
            warnings);
    Double rate = has(root, "rate") ? positiveDouble(root, "rate") : null;
    Integer concurrency;
    if (has(root, "concurrency")) {
      concurrency = positiveInt(root, "concurrency");
    } else {
      concurrency = rate == null && !traffic.openLoop() ? DEFAULT_CONCURRENCY : null;
    }
    int totalRequests =
        has(root, "total_requests") ? positiveInt(root, "total_requests") : DEFAULT_TOTAL_REQUESTS;
    Integer maxTokens = DEFAULT_MAX_TOKENS;
    if (root.has("max_tokens")) {
      maxTokens =
          root.get("max_tokens").isNull() || root.get("max_tokens").asInt(-1) == 0
              ? null
              : positiveInt(root, "max_tokens");
    }
    Arrival arrival =
        has(root, "arrival") ? Arrival.parse(text(root, "arrival")) : Arrival.CONSTANT;
    Duration duration = has(root, "duration") ? duration(root, "duration", true) : null;
    if (traffic.schedule() != null && traffic.schedule().end() != null) {
      Duration end = traffic.schedule().end();
      duration = duration == null || end.compareTo(duration) < 0 ? end : duration;
    }
    Prompts prompts = Prompts.of(traffic.conversations());

    SortedMap<String, String> labels = stringMap(root, "labels");
    labels.put("concurrency", concurrency == null ? "unbounded" : Integer.toString(concurrency));

    Map<String, String> headers = new LinkedHashMap<>(stringMap(root, "headers"));
    for (String h : headers.keySet()) {
      String lower = h.toLowerCase(Locale.ROOT);
      if (lower.equals("authorization") || lower.equals("x-api-key")) {
        // a key in a custom header must never be printed or published either
        key = key == null ? new ApiKey(stripBearer(headers.get(h)), "headers." + h) : key;
      }
    }
    ObjectNode extraBody = null;
    if (has(root, "extra_body")) {
      if (!(root.get("extra_body") instanceof ObjectNode body)) {
        throw new ConfigException("config key 'extra_body': must be a JSON object");
      }
      extraBody = body.deepCopy();
    }

    String runId = has(root, "run_id") ? text(root, "run_id") : generatedRunId();
    Duration stopGrace =
        has(root, "stop_grace") ? duration(root, "stop_grace", false) : DEFAULT_STOP_GRACE;
    ProxySettings proxy =
        ProxySettings.resolve(
            root.has("proxy") && !root.get("proxy").isNull() ? text(root, "proxy") : null,
            target,
            env);
    String anthropicVersion =
        has(root, "anthropic_version")
            ? text(root, "anthropic_version")
            : DEFAULT_ANTHROPIC_VERSION;

    return new ProducerConfig(
        target,
        api,
        key,
        List.copyOf(models),
        concurrency,
        totalRequests,
        maxTokens,
        prompts,
        timeouts(root),
        rate,
        arrival,
        seed,
        duration,
        labels,
        bool(root, "include_usage", true),
        bool(root, "continuous_usage", false),
        Map.copyOf(headers),
        extraBody,
        runId,
        stopGrace,
        proxy,
        anthropicVersion,
        traffic,
        has(root, "warmup") ? Warmup.parse("warmup", text(root, "warmup")) : Warmup.DEFAULT);
  }

  /**
   * The API root as OpenAI-compatible SDKs read {@code base_url}: a bare host gets {@code /v1} (as
   * the seed's script); a URL with a path is used as given (trailing slashes and a trailing {@code
   * /chat/completions}, {@code /messages} or {@code /models} dropped); the query string is kept
   * (Azure's {@code ?api-version=...}) and goes after the endpoint's path on every request.
   */
  static URI baseUrl(ObjectNode root) {
    if (!has(root, "base_url")) {
      throw new ConfigException(
          "config key 'base_url' is missing: set it to the API's address, e.g."
              + " https://api.openai.com/v1");
    }
    String raw = text(root, "base_url").trim();
    URI uri;
    try {
      uri = new URI(raw);
    } catch (URISyntaxException e) {
      throw new ConfigException("config key 'base_url': '" + raw + "' is not a URL");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
      throw new ConfigException(
          "config key 'base_url': '"
              + raw
              + "' must be an http:// or https:// URL with a host, e.g. https://api.openai.com/v1");
    }
    if (uri.getRawFragment() != null) {
      throw new ConfigException(
          "config key 'base_url': '" + raw + "' must not have a fragment (#...)");
    }
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    while (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    for (String endpoint : List.of("/chat/completions", "/messages", "/models")) {
      if (path.endsWith(endpoint)) {
        path = path.substring(0, path.length() - endpoint.length());
      }
    }
    if (path.isEmpty()) {
      path = "/v1";
    }
    String query = uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery();
    return URI.create(scheme + "://" + uri.getRawAuthority() + path + query);
  }

  private static ApiKey apiKey(ObjectNode root, Map<String, String> env, ApiKind api) {
    if (has(root, "api_key") && !text(root, "api_key").isBlank()) {
      return new ApiKey(stripBearer(text(root, "api_key").trim()), "config key 'api_key'");
    }
    String vendor = api == ApiKind.ANTHROPIC ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
    for (String name : List.of("TPOT_API_KEY", vendor)) {
      String v = env.get(name);
      if (v != null && !v.isBlank()) {
        return new ApiKey(stripBearer(v.trim()), "environment variable " + name);
      }
    }
    return null;
  }

  private static String stripBearer(String value) {
    return value.regionMatches(true, 0, "Bearer ", 0, 7) ? value.substring(7).trim() : value;
  }

  private static List<String> models(ObjectNode root) {
    JsonNode node = root.get("models");
    if (node == null || node.isNull()) {
      throw new ConfigException(
          "config key 'models' is missing: list the model ids, e.g. [\"gpt-4o-mini\"]"
              + " (tpot models --config FILE lists them)");
    }
    List<String> models = new ArrayList<>();
    if (node.isTextual()) {
      for (String m : node.asText().split(",")) {
        if (!m.isBlank()) {
          models.add(m.trim());
        }
      }
    } else if (node instanceof ArrayNode array) {
      for (JsonNode m : array) {
        if (!m.isTextual() || m.asText().isBlank()) {
          throw new ConfigException(
              "config key 'models': every entry must be a model id string, got " + m);
        }
        models.add(m.asText().trim());
      }
    } else {
      throw new ConfigException("config key 'models': must be a list of model ids");
    }
    if (models.isEmpty()) {
      throw new ConfigException("config key 'models': the list is empty: name at least one model");
    }
    return models;
  }

  private static Timeouts timeouts(ObjectNode root) {
    Duration total = has(root, "timeout") ? duration(root, "timeout", false) : DEFAULT_TIMEOUT;
    JsonNode t = root.get("timeouts");
    if (t != null && !t.isNull() && !(t instanceof ObjectNode)) {
      throw new ConfigException(
          "config key 'timeouts': must be an object with connect, first_token, idle and total");
    }
    ObjectNode obj =
        t == null || t.isNull() ? JsonNodeFactory.instance.objectNode() : (ObjectNode) t;
    for (Iterator<String> it = obj.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!Set.of("connect", "first_token", "idle", "total").contains(k)) {
        throw new ConfigException(
            "config key 'timeouts." + k + "' is not known (use connect, first_token, idle, total)");
      }
    }
    if (has(obj, "total")) {
      total = duration(obj, "total", "timeouts.total");
    }
    Duration connect =
        has(obj, "connect")
            ? duration(obj, "connect", "timeouts.connect")
            : min(DEFAULT_CONNECT_TIMEOUT, total);
    Duration firstToken =
        has(obj, "first_token") ? duration(obj, "first_token", "timeouts.first_token") : total;
    Duration idle = has(obj, "idle") ? duration(obj, "idle", "timeouts.idle") : total;
    return new Timeouts(connect, firstToken, idle, total);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  private static String generatedRunId() {
    String time =
        ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    return "run-" + time + "-" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x10000));
  }

  private static boolean has(ObjectNode root, String key) {
    JsonNode n = root.get(key);
    return n != null && !n.isNull();
  }

  private static String text(ObjectNode root, String key) {
    JsonNode n = root.get(key);
    if (!n.isValueNode()) {
      throw new ConfigException("config key '" + key + "': must be a string, got " + n);
    }
    return n.asText();
  }

  private static String optionalText(ObjectNode root, String key) {
    return has(root, key) ? text(root, key) : null;
  }

  private static long integer(ObjectNode root, String key) {
    JsonNode n = root.get(key);
    if (n.isIntegralNumber()) {
      return n.asLong();
    }
    if (n.isTextual()) {
      try {
        return Long.parseLong(n.asText().trim());
      } catch (NumberFormatException e) {
        // falls through to the message below
      }
    }
    throw new ConfigException("config key '" + key + "': must be an integer, got " + n);
  }

  private static int positiveInt(ObjectNode root, String key) {
    long v = integer(root, key);
    if (v <= 0 || v > Integer.MAX_VALUE) {
      throw new ConfigException("config key '" + key + "': must be a positive integer, got " + v);
    }
    return (int) v;
  }

  private static double positiveDouble(ObjectNode root, String key) {
    JsonNode n = root.get(key);
    double v;
    if (n.isNumber()) {
      v = n.asDouble();
    } else {
      try {
        v = Double.parseDouble(n.asText().trim());
      } catch (NumberFormatException e) {
        throw new ConfigException("config key '" + key + "': must be a number, got " + n);
      }
    }
    if (!(v > 0) || Double.isInfinite(v)) {
      throw new ConfigException("config key '" + key + "': must be more than 0, got " + n);
    }
    return v;
  }

  private static boolean bool(ObjectNode root, String key, boolean defaultValue) {
    if (!has(root, key)) {
      return defaultValue;
    }
    JsonNode n = root.get(key);
    if (n.isBoolean()) {
      return n.asBoolean();
    }
    String t = n.asText().trim().toLowerCase(Locale.ROOT);
    if (t.equals("true") || t.equals("false")) {
      return Boolean.parseBoolean(t);
    }
    throw new ConfigException("config key '" + key + "': must be true or false, got " + n);
  }

  private static Duration duration(ObjectNode root, String key, boolean foreverAllowed) {
    JsonNode n = root.get(key);
    if (n.isNumber()) {
      if (!(n.asDouble() > 0)) {
        throw new ConfigException("config key '" + key + "': must be more than 0, got " + n);
      }
      return Duration.ofNanos(Math.round(n.asDouble() * 1e9));
    }
    return Durations.parse(key, n.asText(), foreverAllowed);
  }

  private static Duration duration(ObjectNode obj, String field, String key) {
    ObjectNode wrapper = JsonNodeFactory.instance.objectNode();
    wrapper.set(key, obj.get(field));
    return duration(wrapper, key, false);
  }

  private static SortedMap<String, String> stringMap(ObjectNode root, String key) {
    SortedMap<String, String> map = new TreeMap<>();
    if (!has(root, key)) {
      return map;
    }
    if (!(root.get(key) instanceof ObjectNode obj)) {
      throw new ConfigException(
          "config key '" + key + "': must be an object of names to values, e.g. {\"a\": \"b\"}");
    }
    obj.fields()
        .forEachRemaining(
            f -> {
              if (!f.getValue().isValueNode() || f.getValue().isNull()) {
                throw new ConfigException(
                    "config key '" + key + "." + f.getKey() + "': must be a string");
              }
              map.put(f.getKey(), f.getValue().asText());
            });
    return map;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }
}

package io.tpotstream.producer.config;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tpotstream.common.Json;
import io.tpotstream.common.Nearest;
import io.tpotstream.common.event.TokenEventBounds;
import io.tpotstream.common.secret.Secrets;
import io.tpotstream.producer.engine.EngineSettings;
import io.tpotstream.producer.http.ClientTls;
import io.tpotstream.producer.traffic.TraceSchedule;
import io.tpotstream.producer.workload.Traffic;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * Reads the producer's JSON config (the seed script's format plus extensions), applies {@code
 * key=value} overrides, takes the key from the environment when the file has none, and validates
 * every value with a message naming the key.
 */
public final class ConfigLoader {
  /**
   * Every key the loader understands; any other key is an error that names the nearest of these,
   * unless it starts with {@value #OWN_PREFIX} or the config sets {@value #ALLOW_UNKNOWN} to true.
   */
  public static final Set<String> KEYS = ConfigFile.KEYS;

  /**
   * Keys that start with this are the user's own (notes, another tool's): never read, never
   * refused.
   */
  public static final String OWN_PREFIX = "x-";

  /**
   * A top-level key that, set to {@code true}, turns the refusal of unknown keys into warnings: for
   * a config shared with another tool, whose keys cannot be renamed.
   */
  public static final String ALLOW_UNKNOWN = "x-allow-unknown";

  /** Binds a config object: strict types (no 1.5 read as 1), unknown timeouts keys refused. */
  private static final ObjectReader READER =
      Json.MAPPER
          .readerFor(ConfigFile.class)
          .with(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .without(DeserializationFeature.ACCEPT_FLOAT_AS_INT);

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
   * @throws ConfigException for a key that is not known (naming the nearest known one), and every
   *     other mistake, in one line
   */
  public static ProducerConfig load(
      Path file,
      Map<String, String> overrides,
      Map<String, String> env,
      Consumer<String> warnings) {
    ObjectNode root = ConfigJson.read(file, overrides);
    checkKeys(root, file, overrides, warnings);
    return bind(root, env, baseDir(file), warnings);
  }

  /** As {@link #load}, for commands that need no model list ({@code tpot models}). */
  public static ProducerConfig loadForListing(
      Path file,
      Map<String, String> overrides,
      Map<String, String> env,
      Consumer<String> warnings) {
    ObjectNode root = ConfigJson.read(file, overrides);
    checkKeys(root, file, overrides, warnings);
    if (!root.hasNonNull("models")) {
      root.put("models", "(none)");
    }
    return bind(root, env, baseDir(file), warnings);
  }

  /** Where the config's relative paths start: the file's folder, else the working directory. */
  private static Path baseDir(Path file) {
    return file == null ? Path.of(".") : file.toAbsolutePath().getParent();
  }

  /**
   * Refuses the top-level keys that are not known, as a mistyped flag is refused: one line naming
   * each, where it came from and the known key nearest to it. A key starting with {@value
   * #OWN_PREFIX} is left alone; with {@value #ALLOW_UNKNOWN} true the others are warned about and
   * ignored.
   */
  private static void checkKeys(
      ObjectNode root, Path file, Map<String, String> overrides, Consumer<String> warnings) {
    JsonNode allow = root.get(ALLOW_UNKNOWN);
    if (allow != null && !allow.isBoolean()) {
      throw new ConfigException(
          "config key '" + ALLOW_UNKNOWN + "': must be true or false, got " + allow);
    }
    Set<String> fromFlags = new HashSet<>();
    overrides.keySet().forEach(k -> fromFlags.add(k.trim().split("\\.")[0]));
    List<String> unknown = new ArrayList<>();
    for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (KEYS.contains(key) || key.startsWith(OWN_PREFIX)) {
        continue;
      }
      if (allow != null && allow.booleanValue()) {
        warnings.accept(
            "config key '" + key + "' is not known and is ignored (" + ALLOW_UNKNOWN + ")");
      } else {
        unknown.add(key);
      }
    }
    if (unknown.isEmpty()) {
      return;
    }
    List<String> named = new ArrayList<>();
    for (String key : unknown) {
      String where = fromFlags.contains(key) ? " (from --set)" : file == null ? "" : " in " + file;
      String nearest =
          Nearest.of(key, new TreeSet<>(KEYS)).map(k -> "did you mean '" + k + "'?").orElse(null);
      named.add(
          unknown.size() == 1
              ? "config key '"
                  + key
                  + "'"
                  + where
                  + " is not known"
                  + (nearest == null ? " (docs/producer.md lists the keys)." : ": " + nearest)
              : "'" + key + "'" + where + (nearest == null ? "" : " (" + nearest + ")"));
    }
    throw new ConfigException(
        (unknown.size() == 1
                ? named.get(0)
                : "config keys not known: " + String.join(", ", named) + ".")
            + " A key of another tool: prefix it with "
            + OWN_PREFIX
            + ", or set \""
            + ALLOW_UNKNOWN
            + "\": true");
  }

  static ProducerConfig bind(
      ObjectNode root, Map<String, String> env, Path baseDir, Consumer<String> warnings) {
    ConfigFile f = typed(root);
    ApiKind api = f.api() != null ? ApiKind.parse(f.api()) : null;
    URI target = baseUrl(f.baseUrl());
    if (api == null) {
      api =
          target.getHost() != null && target.getHost().endsWith("anthropic.com")
              ? ApiKind.ANTHROPIC
              : ApiKind.OPENAI;
    }
    ApiKey key = apiKey(f.apiKey(), env, api);
    List<String> models = models(f.models());

    long seed = f.seed() != null ? f.seed() : ThreadLocalRandom.current().nextLong();
    if (f.dataset() != null && f.promptsFile() != null) {
      throw new ConfigException(
          "config keys 'dataset' and 'prompts_file' are the same thing: keep one");
    }
    TraceSchedule trace = trace(f, baseDir, warnings);
    Traffic traffic =
        Traffic.of(
            f.dataset() != null ? "dataset" : "prompts_file",
            f.dataset() != null ? f.dataset() : f.promptsFile(),
            f.inputLen(),
            f.outputLen(),
            f.schedule(),
            f.sweep(),
            f.rate() != null,
            baseDir,
            seed,
            f.prompt() != null ? f.prompt() : DEFAULT_PROMPT,
            warnings);
    if (trace != null) {
      traffic = traffic.withTrace(trace);
    }
    Double rate = f.rate() != null ? positive("rate", f.rate(), root.get("rate")) : null;
    Integer concurrency;
    if (f.concurrency() != null) {
      concurrency = positive("concurrency", f.concurrency());
    } else {
      concurrency = rate == null && !traffic.openLoop() ? DEFAULT_CONCURRENCY : null;
    }
    int totalRequests =
        f.totalRequests() != null
            ? positive("total_requests", f.totalRequests())
            : DEFAULT_TOTAL_REQUESTS;
    Integer maxTokens = maxTokens(f.maxTokens());
    Arrival arrival = f.arrival() != null ? Arrival.parse(f.arrival()) : Arrival.CONSTANT;
    Duration duration = present(f.duration()) ? duration("duration", f.duration(), true) : null;
    if (traffic.schedule() != null && traffic.schedule().end() != null) {
      Duration end = traffic.schedule().end();
      duration = duration == null || end.compareTo(duration) < 0 ? end : duration;
    }
    Prompts prompts = Prompts.of(traffic.conversations());

    SortedMap<String, String> labels = strings("labels", f.labels());
    checkLabels(labels, trace);
    labels.put("concurrency", concurrency == null ? "unbounded" : Integer.toString(concurrency));

    Map<String, String> headers = new LinkedHashMap<>(strings("headers", f.headers()));
    for (String h : headers.keySet()) {
      String lower = h.toLowerCase(Locale.ROOT);
      if (lower.equals("authorization") || lower.equals("x-api-key")) {
        // a key in a custom header must never be printed or published either
        key = key == null ? new ApiKey(stripBearer(headers.get(h)), "headers." + h) : key;
      }
    }

    ProxySettings proxy = ProxySettings.resolve(f.proxy(), target, env);
    Secrets.Builder secrets =
        Secrets.builder().url(f.baseUrl()).credentials(proxy.username(), proxy.password());
    EngineSettings engine =
        EngineSettings.of(
            f.engineMetrics(),
            present(f.engineMetricsInterval())
                ? duration("engine_metrics_interval", f.engineMetricsInterval(), false)
                : null,
            f.engineMapping(),
            baseDir);
    engine.targets().forEach(t -> secrets.url(t.url().toString()));
    if (key != null) {
      secrets.add(key.reveal());
    }
    headers.forEach(secrets::header);
    Secrets known = secrets.build();

    return new ProducerConfig(
        target,
        api,
        key,
        List.copyOf(models),
        concurrency,
        totalRequests,
        maxTokens,
        prompts,
        timeouts(f.timeout(), f.timeouts()),
        rate,
        arrival,
        seed,
        duration,
        labels,
        f.includeUsage() == null || f.includeUsage(),
        f.continuousUsage() != null && f.continuousUsage(),
        ignoreEos(f.ignoreEos(), api),
        Map.copyOf(headers),
        f.extraBody() == null ? null : f.extraBody().deepCopy(),
        f.runId() != null ? runId(f.runId()) : generatedRunId(),
        present(f.stopGrace()) ? duration("stop_grace", f.stopGrace(), false) : DEFAULT_STOP_GRACE,
        proxy,
        f.anthropicVersion() != null ? f.anthropicVersion() : DEFAULT_ANTHROPIC_VERSION,
        traffic,
        f.warmup() != null ? Warmup.parse("warmup", f.warmup()) : Warmup.DEFAULT,
        tls(f, env, baseDir, known.url(target), warnings),
        known,
        engine);
  }

  /**
   * The trace of config key {@code trace} (relative to {@code baseDir}), read whole here, with its
   * {@code trace_format}, {@code trace_speed} and {@code trace_window}; null without one. The keys
   * that say otherwise when requests start or what they send are refused with it; those it makes
   * unused ({@code total_requests}, {@code max_tokens}, {@code prompt}) are warned about.
   */
  private static TraceSchedule trace(ConfigFile f, Path baseDir, Consumer<String> warnings) {
    if (f.trace() == null || f.trace().isBlank()) {
      Map<String, Object> needTrace = new LinkedHashMap<>();
      needTrace.put("trace_format", f.traceFormat());
      needTrace.put("trace_speed", f.traceSpeed());
      needTrace.put("trace_window", f.traceWindow());
      needTrace.forEach(
          (key, value) -> {
            if (value != null) {
              throw new ConfigException(
                  "config key '" + key + "' needs config key 'trace' (--trace FILE)");
            }
          });
      return null;
    }
    Map<String, Object> conflicts = new LinkedHashMap<>();
    conflicts.put("rate", f.rate());
    conflicts.put("schedule", f.schedule());
    conflicts.put("arrival", f.arrival());
    conflicts.put("sweep", f.sweep());
    conflicts.put("dataset", f.dataset());
    conflicts.put("prompts_file", f.promptsFile());
    conflicts.put("input_len", f.inputLen());
    conflicts.put("output_len", f.outputLen());
    conflicts.forEach(
        (key, value) -> {
          if (value != null) {
            throw new ConfigException(
                "config keys 'trace' and '"
                    + key
                    + "' cannot be used together: the trace gives each request's start, prompt"
                    + " length and output length; keep one");
          }
        });
    List<String> unused = new ArrayList<>();
    if (f.maxTokens() != null) {
      unused.add("max_tokens");
    }
    if (f.prompt() != null) {
      unused.add("prompt");
    }
    if (f.totalRequests() != null) {
      unused.add("total_requests");
    }
    if (!unused.isEmpty()) {
      warnings.accept(
          "config key(s) '"
              + String.join("', '", unused)
              + "' are not used with a trace: its lines give the requests, their prompts and"
              + " their output lengths");
    }
    return TraceSchedule.of(
        baseDir.resolve(f.trace().trim()), f.traceFormat(), f.traceSpeed(), f.traceWindow());
  }

  /** {@code ignore_eos}, which the Anthropic API does not take. */
  private static boolean ignoreEos(Boolean ignoreEos, ApiKind api) {
    if (ignoreEos == null || !ignoreEos) {
      return false;
    }
    if (api == ApiKind.ANTHROPIC) {
      throw new ConfigException(
          "config key 'ignore_eos': the Anthropic API takes neither min_tokens nor ignore_eos"
              + " (its max_tokens is a cap only): leave it out");
    }
    return true;
  }

  /**
   * {@code ca_file} (else {@code SSL_CERT_FILE}), {@code client_cert} with {@code client_key}, and
   * {@code insecure}, which is warned about here (at start) and on every run; relative files are
   * under {@code baseDir}.
   */
  private static ClientTls tls(
      ConfigFile f,
      Map<String, String> env,
      Path baseDir,
      String printableTarget,
      Consumer<String> warnings) {
    ClientTls tls;
    try {
      tls =
          ClientTls.of(
              file(f.caFile(), baseDir),
              "config key 'ca_file'",
              file(f.clientCert(), baseDir),
              file(f.clientKey(), baseDir),
              f.insecure() != null && f.insecure(),
              env);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          (e.getMessage().startsWith("a certificate needs")
                  ? "config keys 'client_cert' and 'client_key': "
                  : "")
              + e.getMessage());
    }
    String warning = tls.insecureWarning(printableTarget);
    if (warning != null) {
      warnings.accept(warning);
    }
    return tls;
  }

  private static Path file(String name, Path baseDir) {
    return name == null || name.isBlank() ? null : baseDir.resolve(name.trim());
  }

  /**
   * The file's object bound to {@link ConfigFile}; a value of the wrong type is reported with its
   * key (dotted inside objects), what it must be, and what it is.
   */
  private static ConfigFile typed(ObjectNode root) {
    try {
      return READER.readValue(root);
    } catch (UnrecognizedPropertyException e) {
      throw new ConfigException(
          "config key '"
              + key(e)
              + "' is not known (use "
              + String.join(
                  ", ",
                  new TreeSet<>(e.getKnownPropertyIds().stream().map(String::valueOf).toList()))
              + ")");
    } catch (JsonMappingException e) {
      String key = key(e);
      JsonNode value = root.at("/" + key.replace(".", "/"));
      Class<?> type = e instanceof MismatchedInputException m ? m.getTargetType() : null;
      if (type == ConfigFile.TimeoutKeys.class) {
        throw new ConfigException(
            "config key '"
                + key
                + "': must be an object with connect, first_token, idle and total");
      }
      if (type != null && Map.class.isAssignableFrom(type)) {
        throw new ConfigException(
            "config key '" + key + "': must be an object of names to values, e.g. {\"a\": \"b\"}");
      }
      if (type == ObjectNode.class) {
        throw new ConfigException("config key '" + key + "': must be a JSON object");
      }
      boolean secret = key.equals("api_key") || key.equals("base_url") || key.startsWith("headers");
      throw new ConfigException(
          "config key '"
              + key
              + "': must be "
              + expected(type)
              + (secret ? "" : ", got " + value)); // a secret's value is never echoed
    } catch (IOException e) {
      throw new ConfigException("config: " + ConfigJson.firstLine(e.getMessage()));
    }
  }

  /** The dotted key a binding failure is about. */
  private static String key(JsonMappingException e) {
    StringBuilder key = new StringBuilder();
    for (JsonMappingException.Reference r : e.getPath()) {
      if (r.getFieldName() != null) {
        key.append(key.length() == 0 ? "" : ".").append(r.getFieldName());
      }
    }
    return key.toString();
  }

  private static String expected(Class<?> type) {
    if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
      return "an integer";
    }
    if (type == Double.class || type == double.class) {
      return "a number";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    return "a string";
  }

  /**
   * The API root as OpenAI-compatible SDKs read {@code base_url}: a bare host gets {@code /v1} (as
   * the seed's script); a URL with a path is used as given (trailing slashes and a trailing {@code
   * /chat/completions}, {@code /messages} or {@code /models} dropped); the query string is kept
   * (Azure's {@code ?api-version=...}) and goes after the endpoint's path on every request.
   */
  static URI baseUrl(String baseUrl) {
    if (baseUrl == null) {
      throw new ConfigException(
          "config key 'base_url' is missing: set it to the API's address, e.g."
              + " https://api.openai.com/v1");
    }
    String raw = baseUrl.trim();
    String shown = Secrets.NONE.url(raw);
    URI uri;
    try {
      uri = new URI(raw);
    } catch (URISyntaxException e) {
      throw new ConfigException("config key 'base_url': '" + shown + "' is not a URL");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
      throw new ConfigException(
          "config key 'base_url': '"
              + shown
              + "' must be an http:// or https:// URL with a host, e.g. https://api.openai.com/v1");
    }
    if (uri.getRawFragment() != null) {
      throw new ConfigException(
          "config key 'base_url': '" + shown + "' must not have a fragment (#...)");
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

  private static ApiKey apiKey(String apiKey, Map<String, String> env, ApiKind api) {
    if (apiKey != null && !apiKey.isBlank()) {
      return new ApiKey(stripBearer(apiKey.trim()), "config key 'api_key'");
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

  private static List<String> models(JsonNode node) {
    if (!present(node)) {
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
    for (String m : models) {
      refuseLonger(
          "models",
          "a model id of ",
          m,
          TokenEventBounds.MAX_MODEL_CHARS,
          " (every event of it would be refused)");
    }
    if (models.isEmpty()) {
      throw new ConfigException("config key 'models': the list is empty: name at least one model");
    }
    return models;
  }

  private static Timeouts timeouts(JsonNode timeout, ConfigFile.TimeoutKeys keys) {
    Duration total = present(timeout) ? duration("timeout", timeout, false) : DEFAULT_TIMEOUT;
    ConfigFile.TimeoutKeys t =
        keys == null ? new ConfigFile.TimeoutKeys(null, null, null, null) : keys;
    if (present(t.total())) {
      total = duration("timeouts.total", t.total(), false);
    }
    Duration connect =
        present(t.connect())
            ? duration("timeouts.connect", t.connect(), false)
            : min(DEFAULT_CONNECT_TIMEOUT, total);
    Duration firstToken =
        present(t.firstToken()) ? duration("timeouts.first_token", t.firstToken(), false) : total;
    Duration idle = present(t.idle()) ? duration("timeouts.idle", t.idle(), false) : total;
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

  private static boolean present(JsonNode n) {
    return n != null && !n.isNull();
  }

  /** {@code max_tokens}: absent gives the default, null or 0 no limit, else a positive integer. */
  private static Integer maxTokens(JsonNode n) {
    if (n == null) {
      return DEFAULT_MAX_TOKENS;
    }
    if (n.isNull() || n.asInt(-1) == 0) {
      return null; // no limit
    }
    long v;
    if (n.isIntegralNumber()) {
      v = n.asLong();
    } else {
      try {
        v = Long.parseLong(n.asText().trim());
      } catch (NumberFormatException e) {
        throw new ConfigException("config key 'max_tokens': must be an integer, got " + n);
      }
    }
    return positive("max_tokens", v);
  }

  private static int positive(String key, long v) {
    if (v <= 0 || v > Integer.MAX_VALUE) {
      throw new ConfigException("config key '" + key + "': must be a positive integer, got " + v);
    }
    return (int) v;
  }

  /** {@code v} when it is more than 0; {@code written} is the value as the file or flag gave it. */
  private static double positive(String key, double v, JsonNode written) {
    if (!(v > 0) || Double.isInfinite(v)) {
      throw new ConfigException("config key '" + key + "': must be more than 0, got " + written);
    }
    return v;
  }

  /** A duration: a number of seconds or text such as 90s ({@link ConfigDurations}). */
  private static Duration duration(String key, JsonNode n, boolean foreverAllowed) {
    if (n.isNumber()) {
      if (!(n.asDouble() > 0)) {
        throw new ConfigException("config key '" + key + "': must be more than 0, got " + n);
      }
      return Duration.ofNanos(Math.round(n.asDouble() * 1e9));
    }
    if (!n.isValueNode()) {
      throw new ConfigException("config key '" + key + "': must be a duration, got " + n);
    }
    return ConfigDurations.parse(key, n.asText(), foreverAllowed);
  }

  /** A names-to-values object, sorted; a null value is refused. */
  private static SortedMap<String, String> strings(String key, Map<String, String> values) {
    SortedMap<String, String> map = new TreeMap<>();
    if (values == null) {
      return map;
    }
    values.forEach(
        (name, value) -> {
          if (value == null) {
            throw new ConfigException("config key '" + key + "." + name + "': must be a string");
          }
          map.put(name, value);
        });
    return map;
  }

  /**
   * The labels a user gives must fit the token event's bounds with the ones tpot adds ({@code
   * concurrency}, {@code stage}, {@code input_len}, {@code run}): otherwise every event of the run
   * would be a dead letter.
   */
  private static void checkLabels(Map<String, String> labels, TraceSchedule trace) {
    int room = TokenEventBounds.MAX_LABELS - RESERVED_LABELS;
    int traced = trace == null ? 0 : trace.file().mostLabels();
    if (traced > 0 && labels.size() + traced > room) {
      throw new ConfigException(
          trace.file().where()
              + " has a line with "
              + traced
              + " labels: with the config's "
              + labels.size()
              + " and the "
              + RESERVED_LABELS
              + " tpot may add, a request would carry more than "
              + TokenEventBounds.MAX_LABELS
              + " (a token event's bound): drop some from config key 'labels'");
    }
    if (labels.size() > room) {
      throw new ConfigException(
          "config key 'labels': "
              + labels.size()
              + " labels, more than "
              + room
              + " (a token event carries at most "
              + TokenEventBounds.MAX_LABELS
              + ", and tpot adds up to "
              + RESERVED_LABELS
              + ")");
    }
    labels.forEach(
        (name, value) -> {
          refuseLonger(
              "labels", "a label name of ", name, TokenEventBounds.MAX_LABEL_NAME_CHARS, "");
          refuseLonger("labels." + name, "", value, TokenEventBounds.MAX_LABEL_VALUE_CHARS, "");
        });
  }

  /** The labels tpot itself may add to a request's. */
  private static final int RESERVED_LABELS = 4;

  private static String runId(String runId) {
    refuseLonger("run_id", "", runId, TokenEventBounds.maxChars("runId"), "");
    return runId;
  }

  /**
   * Refuses a value of config key {@code key} longer than the token event's bound {@code max} (in
   * characters, as the decoders count them): every event carrying it would be a dead letter.
   */
  private static void refuseLonger(String key, String what, String value, int max, String why) {
    int chars = value.codePointCount(0, value.length());
    if (chars > max) {
      throw new ConfigException(
          "config key '" + key + "': " + what + chars + " characters, more than " + max + why);
    }
  }
}

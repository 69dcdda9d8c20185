package io.tpotstream.simulator.profile;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/** Reads the profiles JSON, naming the field at fault in every error. */
final class ProfileParser {
  private static final Set<String> PROFILE_FIELDS =
      Set.of(
          "extends",
          "ttft",
          "gap",
          "stall",
          "fixedStalls",
          "tokensPerChunk",
          "outputTokens",
          "defaultMaxTokens",
          "reasoningShare",
          "errors",
          "catchUp",
          "prefixBlockTokens",
          "prefillMsPerToken",
          "gatewayDelayMs",
          "perRequestMetrics");
  private static final Set<String> ERROR_FIELDS =
      Set.of(
          "http429",
          "retryAfterSeconds",
          "http500",
          "cut",
          "cutAfterChunks",
          "malformed",
          "malformedBeforeSeq");

  private ProfileParser() {}

  /**
   * The profiles of {@code json}; {@code known} are the profiles an {@code "extends"} may name (the
   * built-ins), and each parsed profile becomes nameable by the ones after it.
   */
  static Map<String, ModelProfile> parse(String json, Map<String, ModelProfile> known) {
    JsonNode root;
    try {
      root = Json.MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "not valid JSON (line "
              + e.getLocation().getLineNr()
              + ", column "
              + e.getLocation().getColumnNr()
              + "): "
              + e.getOriginalMessage());
    }
    if (root == null || !root.isObject() || !root.path("models").isObject()) {
      throw new IllegalArgumentException(
          "expected an object {\"models\": {\"<model>\": {profile}, ...}}");
    }
    checkFields(root, Set.of("models"), "the top level");
    Map<String, ModelProfile> nameable = new LinkedHashMap<>(known);
    Map<String, ModelProfile> parsed = new LinkedHashMap<>();
    Iterator<Map.Entry<String, JsonNode>> models = root.get("models").fields();
    while (models.hasNext()) {
      Map.Entry<String, JsonNode> entry = models.next();
      String path = "models." + entry.getKey();
      if (entry.getKey().isBlank()) {
        throw new IllegalArgumentException("a model name is empty");
      }
      ModelProfile profile = profile(entry.getValue(), path, nameable);
      parsed.put(entry.getKey(), profile);
      nameable.put(entry.getKey(), profile);
    }
    return parsed;
  }

  private static ModelProfile profile(
      JsonNode node, String path, Map<String, ModelProfile> nameable) {
    requireObject(node, path);
    checkFields(node, PROFILE_FIELDS, path);
    ModelProfile base = null;
    if (node.has("extends")) {
      String name = text(node.get("extends"), path + ".extends");
      base = nameable.get(name);
      if (base == null) {
        throw new IllegalArgumentException(
            path + ".extends: no profile named '" + name + "' (known: " + nameable.keySet() + ")");
      }
    }
    if (base == null && (!node.has("ttft") || !node.has("gap"))) {
      throw new IllegalArgumentException(
          path + ": needs \"ttft\" and \"gap\" (or \"extends\": \"<a known profile>\")");
    }
    ModelProfile inherited = base(base);
    try {
      return new ModelProfile(
          own(node, "ttft", path, ProfileParser::distribution, inherited.ttft()),
          own(node, "gap", path, ProfileParser::distribution, inherited.gap()),
          own(node, "stall", path, ProfileParser::stall, inherited.stall()),
          own(node, "fixedStalls", path, ProfileParser::fixedStalls, inherited.fixedStalls()),
          own(node, "tokensPerChunk", path, ProfileParser::range, inherited.tokensPerChunk()),
          own(node, "outputTokens", path, ProfileParser::range, inherited.outputTokens()),
          own(node, "defaultMaxTokens", path, ProfileParser::integer, inherited.defaultMaxTokens()),
          own(node, "reasoningShare", path, ProfileParser::number, inherited.reasoningShare()),
          own(node, "errors", path, ProfileParser::errors, inherited.errors()),
          own(node, "catchUp", path, ProfileParser::bool, inherited.catchUp()),
          own(
              node,
              "prefixBlockTokens",
              path,
              ProfileParser::integer,
              inherited.prefixBlockTokens()),
          own(
              node,
              "prefillMsPerToken",
              path,
              ProfileParser::number,
              inherited.prefillMsPerToken()),
          own(node, "gatewayDelayMs", path, ProfileParser::number, inherited.gatewayDelayMs()),
          own(node, "perRequestMetrics", path, ProfileParser::bool, inherited.perRequestMetrics()));
    } catch (IllegalArgumentException e) {
      if (e.getMessage() != null && e.getMessage().startsWith(path)) {
        throw e;
      }
      throw new IllegalArgumentException(path + ": " + e.getMessage(), e);
    }
  }

  /** {@code node}'s own {@code field}, read by {@code read}, else the {@code inherited} value. */
  private static <T> T own(
      JsonNode node, String field, String path, BiFunction<JsonNode, String, T> read, T inherited) {
    return node.has(field) ? read.apply(node.get(field), path + "." + field) : inherited;
  }

  private static ModelProfile base(ModelProfile base) {
    return base != null
        ? base
        : ModelProfile.of(new Distribution.Constant(0), new Distribution.Constant(0));
  }

  /** A number is a constant in ms; an object has a {@code type}. */
  static Distribution distribution(JsonNode node, String path) {
    if (node.isNumber()) {
      return wrap(path, () -> new Distribution.Constant(node.doubleValue()));
    }
    requireObject(node, path);
    String type = node.has("type") ? text(node.get("type"), path + ".type") : "";
    return switch (type) {
      case "constant" -> {
        checkFields(node, Set.of("type", "ms"), path);
        yield wrap(path, () -> new Distribution.Constant(number(node, "ms", path)));
      }
      case "normal" -> {
        checkFields(node, Set.of("type", "meanMs", "stdDevMs", "minMs", "maxMs"), path);
        yield wrap(
            path,
            () ->
                new Distribution.Normal(
                    number(node, "meanMs", path),
                    number(node, "stdDevMs", path),
                    optionalNumber(node, "minMs", path, 0),
                    optionalNumber(node, "maxMs", path, Double.MAX_VALUE)));
      }
      case "lognormal" -> {
        checkFields(node, Set.of("type", "medianMs", "sigma", "p99Ms", "minMs", "maxMs"), path);
        yield wrap(path, () -> logNormal(node, path));
      }
      default ->
          throw new IllegalArgumentException(
              path
                  + ".type: must be \"constant\", \"normal\" or \"lognormal\", got \""
                  + type
                  + "\"");
    };
  }

  private static Distribution logNormal(JsonNode node, String path) {
    double medianMs = number(node, "medianMs", path);
    if (node.has("sigma") == node.has("p99Ms")) {
      throw new IllegalArgumentException(path + ": give exactly one of \"sigma\" and \"p99Ms\"");
    }
    double sigma =
        node.has("sigma")
            ? number(node, "sigma", path)
            : Distribution.LogNormal.ofMedianAndP99(medianMs, number(node, "p99Ms", path)).sigma();
    return new Distribution.LogNormal(
        medianMs,
        sigma,
        optionalNumber(node, "minMs", path, 0),
        optionalNumber(node, "maxMs", path, Double.MAX_VALUE));
  }

  private static Stall stall(JsonNode node, String path) {
    requireObject(node, path);
    checkFields(node, Set.of("probability", "duration"), path);
    Distribution duration = distribution(field(node, "duration", path), path + ".duration");
    return wrap(path, () -> new Stall(number(node, "probability", path), duration));
  }

  private static List<FixedStall> fixedStalls(JsonNode node, String path) {
    if (!node.isArray()) {
      throw new IllegalArgumentException(
          path + ": expected an array like [{\"beforeSeq\": 50, \"gapMs\": 150}]");
    }
    List<FixedStall> stalls = new ArrayList<>();
    for (int i = 0; i < node.size(); i++) {
      JsonNode item = node.get(i);
      String itemPath = path + "[" + i + "]";
      requireObject(item, itemPath);
      checkFields(item, Set.of("beforeSeq", "gapMs"), itemPath);
      stalls.add(
          wrap(
              itemPath,
              () ->
                  new FixedStall(
                      integer(item, "beforeSeq", itemPath), number(item, "gapMs", itemPath))));
    }
    return stalls;
  }

  /** A number is exact; an object is {@code {min, max}}. */
  private static IntRange range(JsonNode node, String path) {
    if (node.isIntegralNumber()) {
      return wrap(path, () -> IntRange.exactly(node.intValue()));
    }
    requireObject(node, path);
    checkFields(node, Set.of("min", "max"), path);
    return wrap(path, () -> new IntRange(integer(node, "min", path), integer(node, "max", path)));
  }

  private static ErrorRates errors(JsonNode node, String path) {
    requireObject(node, path);
    checkFields(node, ERROR_FIELDS, path);
    return wrap(
        path,
        () ->
            new ErrorRates(
                optionalNumber(node, "http429", path, 0),
                node.has("retryAfterSeconds") ? integer(node, "retryAfterSeconds", path) : 1,
                optionalNumber(node, "http500", path, 0),
                optionalNumber(node, "cut", path, 0),
                node.has("cutAfterChunks") ? integer(node, "cutAfterChunks", path) : null,
                optionalNumber(node, "malformed", path, 0),
                node.has("malformedBeforeSeq") ? integer(node, "malformedBeforeSeq", path) : null));
  }

  private interface Build<T> {
    T build();
  }

  private static <T> T wrap(String path, Build<T> build) {
    try {
      return build.build();
    } catch (IllegalArgumentException e) {
      if (e.getMessage() != null && e.getMessage().startsWith(path)) {
        throw e;
      }
      throw new IllegalArgumentException(path + ": " + e.getMessage(), e);
    }
  }

  private static void requireObject(JsonNode node, String path) {
    expect(node.isObject(), "an object", node, path);
  }

  private static void checkFields(JsonNode node, Set<String> known, String path) {
    node.fieldNames()
        .forEachRemaining(
            name -> {
              if (!known.contains(name)) {
                throw new IllegalArgumentException(
                    path + ": unknown field \"" + name + "\" (known: " + sorted(known) + ")");
              }
            });
  }

  private static String sorted(Set<String> names) {
    return String.join(", ", new java.util.TreeSet<>(names));
  }

  private static String text(JsonNode node, String path) {
    expect(node.isTextual(), "a string", node, path);
    return node.textValue();
  }

  private static boolean bool(JsonNode node, String path) {
    expect(node.isBoolean(), "true or false", node, path);
    return node.booleanValue();
  }

  private static double number(JsonNode parent, String field, String path) {
    return number(field(parent, field, path), path + "." + field);
  }

  private static double optionalNumber(JsonNode parent, String field, String path, double absent) {
    return parent.has(field) ? number(parent.get(field), path + "." + field) : absent;
  }

  private static double number(JsonNode node, String path) {
    expect(node.isNumber(), "a number", node, path);
    return node.doubleValue();
  }

  private static int integer(JsonNode parent, String field, String path) {
    return integer(field(parent, field, path), path + "." + field);
  }

  private static int integer(JsonNode node, String path) {
    expect(node.isIntegralNumber() && node.canConvertToInt(), "a whole number", node, path);
    return node.intValue();
  }

  /** The required {@code field} of {@code parent}; its absence is an error at {@code path}. */
  private static JsonNode field(JsonNode parent, String field, String path) {
    if (!parent.has(field)) {
      throw new IllegalArgumentException(path + "." + field + ": missing");
    }
    return parent.get(field);
  }

  /** The one message for a value of the wrong kind: "path: expected {@code what}, got value". */
  private static void expect(boolean ok, String what, JsonNode node, String path) {
    if (!ok) {
      throw new IllegalArgumentException(path + ": expected " + what + ", got " + node);
    }
  }
}

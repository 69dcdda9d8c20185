package io.tpotstream.producer.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
  static final String SEED =
      """
      {
        "base_url": "https://gateway.example.com/v1",
        "api_key": "sk-seed-secret-123",
        "models": ["model-a", "model-b", "model-c"],
        "concurrency": 10,
        "total_requests": 200,
        "max_tokens": 256,
        "prompt": "Explain TPOT.",
        "timeout": 60
      }
      """;

  @TempDir Path dir;
  final List<String> warnings = new ArrayList<>();

  private ProducerConfig load(String json, Map<String, String> overrides, Map<String, String> env)
      throws IOException {
    Path file = dir.resolve("config.json");
    Files.writeString(file, json);
    return ConfigLoader.load(file, overrides, env, warnings::add);
  }

  @Test
  void seedConfigLoadsVerbatim() throws IOException {
    ProducerConfig c = load(SEED, Map.of(), Map.of());
    assertEquals(URI.create("https://gateway.example.com/v1"), c.apiBase());
    assertEquals(URI.create("https://gateway.example.com/v1/chat/completions"), c.streamUrl());
    assertEquals(List.of("model-a", "model-b", "model-c"), c.models());
    assertEquals(10, c.concurrency());
    assertEquals(200, c.totalRequests());
    assertEquals(256, c.maxTokens());
    assertEquals(Duration.ofSeconds(60), c.timeouts().total());
    assertEquals(Duration.ofSeconds(10), c.timeouts().connect());
    assertEquals(Duration.ofSeconds(60), c.timeouts().idle());
    assertEquals(ApiKind.OPENAI, c.api());
    assertFalse(c.openLoop());
    assertEquals(600, c.plannedRequests());
    assertEquals("10", c.labels().get("concurrency"));
    assertEquals("sk-seed-secret-123", c.apiKey().reveal());
    assertTrue(c.includeUsage());
    assertFalse(c.continuousUsage());
    assertEquals(List.of(), warnings);
  }

  @Test
  void aBareHostGetsV1AndAPathIsUsedAsGiven() throws IOException {
    for (String base :
        List.of("http://h:8000", "http://h:8000/", "http://h:8000/v1", "http://h:8000/v1/")) {
      ProducerConfig c = load("{\"base_url\": \"" + base + "\", \"models\": [\"m\"]}");
      assertEquals(URI.create("http://h:8000/v1/chat/completions"), c.streamUrl(), base);
      assertEquals(URI.create("http://h:8000/v1/models"), c.modelsUrl(), base);
    }
    Map<String, String> streams = new LinkedHashMap<>();
    streams.put("https://gw/openai", "https://gw/openai/chat/completions");
    streams.put(
        "https://generativelanguage.googleapis.com/v1beta/openai/",
        "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions");
    streams.put(
        "https://r.openai.azure.com/openai/deployments/gpt-4o?api-version=2024-10-21",
        "https://r.openai.azure.com/openai/deployments/gpt-4o/chat/completions"
            + "?api-version=2024-10-21");
    streams.put("https://gw/v1/chat/completions", "https://gw/v1/chat/completions");
    for (Map.Entry<String, String> stream : streams.entrySet()) {
      ProducerConfig c = load("{\"base_url\": \"" + stream.getKey() + "\", \"models\": [\"m\"]}");
      assertEquals(URI.create(stream.getValue()), c.streamUrl(), stream.getKey());
    }
    ProducerConfig azure =
        load(
            "{\"base_url\": \"https://r.openai.azure.com/openai?api-version=1\","
                + " \"models\": [\"m\"]}");
    assertEquals(
        URI.create("https://r.openai.azure.com/openai/models?api-version=1"), azure.modelsUrl());
    ProducerConfig anthropic =
        load("{\"base_url\": \"https://api.anthropic.com\", \"models\": [\"m\"]}");
    assertEquals(URI.create("https://api.anthropic.com/v1/messages"), anthropic.streamUrl());
  }

  private ProducerConfig load(String json) throws IOException {
    return load(json, Map.of(), Map.of());
  }

  @Test
  void theKeyNeverShowsInTheConfigsPrintout() throws IOException {
    ProducerConfig c = load(SEED, Map.of(), Map.of());
    assertFalse(c.toString().contains("sk-seed-secret-123"), c.toString());
    assertEquals("HTTP 401 for ***", c.secrets().redact("HTTP 401 for sk-seed-secret-123"));
  }

  @Test
  void everySecretOfTheConfigIsKnownToItsSecretsAndNoneShowsInItsPrintout() throws IOException {
    String json =
        """
        {"base_url": "http://urlUser-1:urlPass-2@h/v1?subscription-key=query-3&api-version=9",
         "models": ["m"], "proxy": "http://proxyUser-5:proxyPass-6@p:3128",
         "headers": {"api-key": "header-4", "Content-Type": "application/json"}}
        """;
    ProducerConfig c = load(json, Map.of(), Map.of("TPOT_API_KEY", "sk-env-7"));
    String text = "urlUser-1 urlPass-2 query-3 header-4 proxyUser-5 proxyPass-6 sk-env-7";
    assertEquals("*** *** *** *** *** *** ***", c.secrets().redact(text));
    assertEquals("application/json", c.secrets().redact("application/json"));
    assertEquals(
        "http://***@h/v1/chat/completions?subscription-key=***&api-version=9",
        c.secrets().url(c.streamUrl()));
    for (String secret : text.split(" ")) {
      assertFalse(c.toString().contains(secret), c.toString());
    }
  }

  @Test
  void aBaseUrlThatIsRefusedIsShownWithoutItsSecrets() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                load(
                    "{\"base_url\": \"ftp://u:pw-SECRET@h/v1?key=q-SECRET\", \"models\": [\"m\"]}"));
    assertEquals(
        "config key 'base_url': 'ftp://***@h/v1?key=***' must be an http:// or https:// URL with a"
            + " host, e.g. https://api.openai.com/v1",
        e.getMessage());
  }

  @Test
  void aKeyOfTheWrongTypeIsNotEchoed() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                load(
                    "{\"base_url\": \"http://h\", \"api_key\": [\"sk-in-a-LIST\"], \"models\": [\"m\"]}"));
    assertEquals("config key 'api_key': must be a string", e.getMessage());
  }

  @Test
  void keyComesFromTpotApiKeyThenTheVendorVariable() throws IOException {
    String noKey = "{\"base_url\": \"http://h/v1\", \"models\": [\"m\"]}";
    assertEquals(
        "k1",
        load(noKey, Map.of(), Map.of("TPOT_API_KEY", "k1", "OPENAI_API_KEY", "k2"))
            .apiKey()
            .reveal());
    assertEquals("k2", load(noKey, Map.of(), Map.of("OPENAI_API_KEY", "k2")).apiKey().reveal());
    assertEquals(
        "k3",
        load(
                noKey,
                Map.of("api", "anthropic"),
                Map.of("ANTHROPIC_API_KEY", "k3", "OPENAI_API_KEY", "x"))
            .apiKey()
            .reveal());
    assertNull(load(noKey, Map.of(), Map.of()).apiKey());
    assertEquals(
        "from-file",
        load(
                SEED.replace("sk-seed-secret-123", "Bearer from-file"),
                Map.of(),
                Map.of("TPOT_API_KEY", "env"))
            .apiKey()
            .reveal());
  }

  @Test
  void overridesWinOverTheFileAndReachIntoObjects() throws IOException {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("concurrency", "20");
    o.put("timeouts.idle", "5s");
    o.put("labels.target", "gateway-a");
    o.put("models", "x,y");
    o.put("rate", "2.5");
    o.put("arrival", "poisson");
    o.put("duration", "10m");
    o.put("extra_body.temperature", "0");
    ProducerConfig c = load(SEED, o, Map.of());
    assertEquals(20, c.concurrency());
    assertEquals(Duration.ofSeconds(5), c.timeouts().idle());
    assertEquals(Map.of("concurrency", "20", "target", "gateway-a"), c.labels());
    assertEquals(List.of("x", "y"), c.models());
    assertEquals(2.5, c.rate());
    assertEquals(Arrival.POISSON, c.arrival());
    assertEquals(Duration.ofMinutes(10), c.duration());
    assertEquals(-1, c.plannedRequests());
    assertEquals(0, c.extraBody().get("temperature").asInt());
  }

  @Test
  void openLoopWithoutConcurrencyIsUncapped() throws IOException {
    ProducerConfig c =
        load("{\"base_url\": \"http://h\", \"models\": [\"m\"], \"rate\": 5}", Map.of(), Map.of());
    assertTrue(c.openLoop());
    assertNull(c.concurrency());
    assertEquals("unbounded", c.labels().get("concurrency"));
  }

  @Test
  void durationsReadUnitsAndForever() {
    assertEquals(Duration.ofSeconds(90), ConfigDurations.parse("d", "90s", true));
    assertEquals(Duration.ofMinutes(10), ConfigDurations.parse("d", "10m", true));
    assertEquals(Duration.ofMillis(500), ConfigDurations.parse("d", "500ms", true));
    assertEquals(Duration.ofSeconds(60), ConfigDurations.parse("d", "60", true));
    assertEquals(ConfigDurations.FOREVER, ConfigDurations.parse("d", "forever", true));
    ConfigException e =
        assertThrows(ConfigException.class, () -> ConfigDurations.parse("duration", "soon", true));
    assertEquals(
        "config key 'duration': cannot read 'soon' as a duration (use e.g. 500ms, 90s, 10m, 2h or"
            + " forever)",
        e.getMessage());
  }

  @Test
  void valuesOfTheWrongTypeNameTheKeyWhatItMustBeAndWhatItIs() {
    // override | the message
    String cases =
        """
        concurrency=abc | config key 'concurrency': must be an integer, got "abc"
        concurrency=1.5 | config key 'concurrency': must be an integer, got 1.5
        rate=fast | config key 'rate': must be a number, got "fast"
        rate=0 | config key 'rate': must be more than 0, got 0
        max_tokens=-5 | config key 'max_tokens': must be a positive integer, got -5
        include_usage=[1] | config key 'include_usage': must be true or false, got [1]
        prompt={"a":1} | config key 'prompt': must be a string, got {"a":1}
        labels=5 | config key 'labels': must be an object of names to values, e.g. {"a": "b"}
        labels.a={"b":1} | config key 'labels.a': must be a string, got {"b":1}
        extra_body=[] | config key 'extra_body': must be a JSON object
        timeouts=5 | config key 'timeouts': must be an object with connect, first_token, idle and total
        timeouts.soon=5 | config key 'timeouts.soon' is not known (use connect, first_token, idle, total)
        timeouts.idle=[] | config key 'timeouts.idle': must be a duration, got []
        """;
    for (String line : cases.lines().toList()) {
      String override = line.substring(0, line.indexOf(" | "));
      String message = line.substring(line.indexOf(" | ") + 3);
      int eq = override.indexOf('=');
      Map<String, String> set = Map.of(override.substring(0, eq), override.substring(eq + 1));
      assertEquals(
          message,
          assertThrows(ConfigException.class, () -> load(SEED, set, Map.of())).getMessage(),
          override);
    }
  }

  @Test
  void maxTokensNullOrZeroMeansNoLimit() throws IOException {
    assertEquals(256, load(SEED, Map.of(), Map.of()).maxTokens());
    assertNull(load(SEED, Map.of("max_tokens", "0"), Map.of()).maxTokens());
    assertNull(load(SEED, Map.of("max_tokens", "null"), Map.of()).maxTokens());
    assertEquals(64, load(SEED, Map.of("max_tokens", "64"), Map.of()).maxTokens());
  }

  @Test
  void badValuesNameTheKey() {
    assertEquals(
        "config key 'concurrency': must be a positive integer, got 0",
        assertThrows(ConfigException.class, () -> load(SEED, Map.of("concurrency", "0"), Map.of()))
            .getMessage());
    assertEquals(
        "config key 'base_url' is missing: set it to the API's address, e.g."
            + " https://api.openai.com/v1",
        assertThrows(ConfigException.class, () -> load("{\"models\": [\"m\"]}", Map.of(), Map.of()))
            .getMessage());
    assertTrue(
        assertThrows(
                ConfigException.class,
                () -> load("{\"base_url\": \"ftp://h\", \"models\": [\"m\"]}", Map.of(), Map.of()))
            .getMessage()
            .startsWith("config key 'base_url': 'ftp://h' must be an http:// or https:// URL"));
    assertTrue(
        assertThrows(
                ConfigException.class,
                () -> load("{\"base_url\": \"http://h\"}", Map.of(), Map.of()))
            .getMessage()
            .startsWith("config key 'models' is missing"));
    assertTrue(
        assertThrows(ConfigException.class, () -> load("{not json", Map.of(), Map.of()))
            .getMessage()
            .contains("is not valid JSON"));
  }

  @Test
  void aMistypedKeyIsRefusedNamingTheFileAndTheNearestKey() {
    Path file = dir.resolve("config.json");
    assertEquals(
        "config key 'concurency' in "
            + file
            + " is not known: did you mean 'concurrency'? A key of another tool: prefix it with"
            + " x-, or set \"x-allow-unknown\": true",
        assertThrows(
                ConfigException.class,
                () -> load(SEED.replace("\"concurrency\"", "\"concurency\""), Map.of(), Map.of()))
            .getMessage());
    assertEquals(
        "config keys not known: 'concurency' in "
            + file
            + " (did you mean 'concurrency'?), 'max_token' in "
            + file
            + " (did you mean 'max_tokens'?), 'timout' in "
            + file
            + " (did you mean 'timeout'?), 'colour' in "
            + file
            + ". A key of another tool: prefix it with x-, or set \"x-allow-unknown\": true",
        assertThrows(
                ConfigException.class,
                () ->
                    load(
                        SEED.replace("\"concurrency\"", "\"concurency\"")
                            .replace("\"max_tokens\"", "\"max_token\"")
                            .replace("\"timeout\": 60", "\"timout\": 60, \"colour\": \"red\""),
                        Map.of(),
                        Map.of()))
            .getMessage());
    assertEquals(
        "config key 'total_request' (from --set) is not known: did you mean 'total_requests'? A key"
            + " of another tool: prefix it with x-, or set \"x-allow-unknown\": true",
        assertThrows(
                ConfigException.class, () -> load(SEED, Map.of("total_request", "5"), Map.of()))
            .getMessage());
    assertTrue(warnings.isEmpty(), warnings.toString());
  }

  @Test
  void keysOfOtherToolsAreKeptWithAnXPrefixOrAllowedByXAllowUnknown() throws IOException {
    ProducerConfig c =
        load(
            SEED.replace("\"timeout\": 60", "\"timeout\": 60, \"x-note\": \"gpu box\""),
            Map.of(),
            Map.of());
    assertEquals(10, c.concurrency());
    assertTrue(warnings.isEmpty(), warnings.toString());

    load(
        SEED.replace(
            "\"timeout\": 60", "\"timeout\": 60, \"x-allow-unknown\": true, \"num_prompts\": 9"),
        Map.of(),
        Map.of());
    assertEquals(
        List.of("config key 'num_prompts' is not known and is ignored (x-allow-unknown)"),
        warnings);
    assertEquals(
        "config key 'x-allow-unknown': must be true or false, got \"yes\"",
        assertThrows(
                ConfigException.class, () -> load(SEED, Map.of("x-allow-unknown", "yes"), Map.of()))
            .getMessage());
  }

  @Test
  void invalidJsonNamesTheLineAndColumn() {
    Path file = dir.resolve("config.json");
    assertEquals(
        "config file "
            + file
            + " is not valid JSON at line 4, column 1: Unexpected character ('}' (code 125)):"
            + " was expecting double-quote to start field name",
        assertThrows(
                ConfigException.class,
                () ->
                    load(
                        "{\n  \"base_url\": \"http://h\",\n  \"models\": [\"m\"],\n}\n",
                        Map.of(),
                        Map.of()))
            .getMessage());
  }

  @Test
  void promptsFileCyclesStringsObjectsAndMessageLists() throws IOException {
    Files.writeString(
        dir.resolve("prompts.jsonl"),
        """
        "first"
        {"prompt": "second"}
        {"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "third"}]}
        [{"role": "user", "content": "fourth"}]
        """);
    ProducerConfig c =
        load(
            "{\"base_url\": \"http://h\", \"models\": [\"m\"], \"prompts_file\": \"prompts.jsonl\"}",
            Map.of(),
            Map.of());
    assertEquals(4, c.prompts().size());
    assertEquals("first", c.prompts().messages(0).get(0).get("content").asText());
    assertEquals("second", c.prompts().messages(1).get(0).get("content").asText());
    assertEquals("third", c.prompts().messages(2).get(1).get("content").asText());
    assertEquals("fourth", c.prompts().messages(3).get(0).get("content").asText());
    assertEquals("first", c.prompts().messages(4).get(0).get("content").asText());
  }

  @Test
  void proxyComesFromTheEnvironmentUnlessNoProxyMatches() {
    URI https = URI.create("https://api.example.com/v1");
    ProxySettings p =
        ProxySettings.resolve(
            null, https, Map.of("HTTPS_PROXY", "http://user:pw@proxy.local:3128"));
    assertEquals("proxy.local", p.host());
    assertEquals(3128, p.port());
    assertEquals("user", p.username());
    assertEquals("HTTPS_PROXY", p.source());
    assertEquals("proxy proxy.local:3128 (from HTTPS_PROXY)", p.describe());
    assertFalse(
        ProxySettings.resolve(
                null,
                https,
                Map.of(
                    "HTTPS_PROXY", "http://proxy.local:3128", "NO_PROXY", "localhost,.example.com"))
            .enabled());
    assertFalse(
        ProxySettings.resolve(
                null, https, Map.of("https_proxy", "proxy.local:3128", "no_proxy", "example.com"))
            .enabled());
    assertFalse(
        ProxySettings.resolve(null, URI.create("http://h/v1"), Map.of("HTTPS_PROXY", "http://p:1"))
            .enabled(),
        "an http target uses HTTP_PROXY only");
    assertTrue(
        ProxySettings.resolve(
                null, https, Map.of("HTTPS_PROXY", "http://p:1", "NO_PROXY", "other.com"))
            .enabled());
    assertFalse(
        ProxySettings.resolve("none", https, Map.of("HTTPS_PROXY", "http://p:1")).enabled());
  }

  @Test
  void warmupIsLocalUnlessSetToATimeARequestCountOrNone() throws IOException {
    Warmup byDefault = load(SEED, Map.of(), Map.of()).warmup();
    assertEquals(Warmup.LOCAL, byDefault);
    assertTrue(byDefault.local());
    assertEquals(
        Duration.ofSeconds(10), byDefault.duration(), "at most 10 s, and until the JIT settles");
    assertEquals("local", byDefault.describe());
    assertEquals(Warmup.LOCAL, load(SEED, Map.of("warmup", "local"), Map.of()).warmup());
    assertEquals(
        Duration.ofSeconds(10), load(SEED, Map.of("warmup", "10s"), Map.of()).warmup().duration());
    Warmup requests = load(SEED, Map.of("warmup", "50req"), Map.of()).warmup();
    assertEquals(50, requests.requests());
    assertEquals("50req", requests.describe());
    assertEquals(
        Duration.ofMillis(2500),
        load(SEED, Map.of("warmup", "2.5s"), Map.of()).warmup().duration());
    assertTrue(load(SEED, Map.of("warmup", "0"), Map.of()).warmup().none());
    ConfigException e =
        assertThrows(ConfigException.class, () -> load(SEED, Map.of("warmup", "soon"), Map.of()));
    assertEquals(
        "config key 'warmup': cannot read 'soon' as a warm-up (use local, the default, or 10s or"
            + " 50req to warm the endpoint too, or 0 for none)",
        e.getMessage());
    ConfigException count =
        assertThrows(ConfigException.class, () -> load(SEED, Map.of("warmup", "-2req"), Map.of()));
    assertTrue(count.getMessage().contains("as a number of warm-up requests"), count.getMessage());
  }

  @Test
  void labelsThatWouldMakeEveryEventADeadLetterAreRefusedAtOnce() throws IOException {
    Map<String, String> many = new java.util.LinkedHashMap<>();
    for (int i = 0; i < 13; i++) {
      many.put("labels.k" + i, "v");
    }
    assertEquals(
        "config key 'labels': 13 labels, more than 12 (a token event carries at most 16, and tpot"
            + " adds up to 4)",
        assertThrows(ConfigException.class, () -> load(SEED, many, Map.of())).getMessage());
    assertEquals(
        "config key 'labels.target': 257 characters, more than 256",
        assertThrows(
                ConfigException.class,
                () -> load(SEED, Map.of("labels.target", "x".repeat(257)), Map.of()))
            .getMessage());
    many.remove("labels.k12");
    assertEquals(13, load(SEED, many, Map.of()).labels().size(), "12 and concurrency");
  }
}

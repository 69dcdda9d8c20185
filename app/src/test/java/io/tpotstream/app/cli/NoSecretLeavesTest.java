package io.tpotstream.app.cli;

import static io.tpotstream.app.cli.TpotCli.tpot;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A distinct secret in every place a user can put one (the key in the config file and in the
 * environment, the URL's user and password, a query value, each configured header, a header given
 * as a flag, the proxy's credentials in the environment), against a server that quotes back every
 * byte it received (in a refusal, an in-band error event and an HTML page) and one that answers
 * normally: no secret appears in the topic's bytes, stdout, stderr (where the logs go, at DEBUG),
 * the requests-out file or the result table. Then the proxy's --upstream with secrets.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class NoSecretLeavesTest {
  static final String KEY_IN_FILE = "sk-file-KEY-a1b2c3";
  static final String KEY_IN_ENV = "sk-env-KEY-d4e5f6";
  static final String URL_USER = "urlUser-g7h8";
  static final String URL_PASSWORD = "urlPass-i9j0";
  static final String QUERY_VALUE = "queryKey-k1l2";
  static final String HEADER_AZURE = "hdrAzure-m3n4";
  static final String HEADER_APIM = "hdrApim-o5p6";
  static final String HEADER_FLAG = "hdrFlag-q7r8";
  static final String PROXY_USER = "proxyUser-s9t0";
  static final String PROXY_PASSWORD = "proxyPass-u1v2";
  static final String UPSTREAM_USER = "upUser-w3x4";
  static final String UPSTREAM_PASSWORD = "upPass-y5z6";
  static final String UPSTREAM_QUERY = "upQuery-a7b8";
  static final String CLIENT_KEY = "sk-client-KEY-c9d0";
  static final String CLIENT_HEADER = "clientHdr-e1f2";
  static final String CLIENT_QUERY = "clientQuery-g3h4";

  static final Map<String, String> PLANTED = planted();

  @TempDir Path dir;

  private static Map<String, String> planted() {
    Map<String, String> all = new LinkedHashMap<>();
    all.put("api_key in the config file", KEY_IN_FILE);
    all.put("TPOT_API_KEY", KEY_IN_ENV);
    all.put("the URL's user", URL_USER);
    all.put("the URL's password", URL_PASSWORD);
    all.put("a query value", QUERY_VALUE);
    all.put("header api-key", HEADER_AZURE);
    all.put("header Ocp-Apim-Subscription-Key", HEADER_APIM);
    all.put("header from --set", HEADER_FLAG);
    all.put("HTTP_PROXY's user", PROXY_USER);
    all.put("HTTP_PROXY's password", PROXY_PASSWORD);
    all.put("--upstream's user", UPSTREAM_USER);
    all.put("--upstream's password", UPSTREAM_PASSWORD);
    all.put("--upstream's query value", UPSTREAM_QUERY);
    all.put("a proxied request's Authorization", CLIENT_KEY);
    all.put("a proxied request's api-key header", CLIENT_HEADER);
    all.put("a proxied request's query value", CLIENT_QUERY);
    return all;
  }

  @Test
  void noPlantedSecretAppearsInAnyOutputOfProduceModelsOrProxy(TestKafka kafka) throws Exception {
    try (EchoingServer server = new EchoingServer()) {
      String baseUrl =
          "http://"
              + URL_USER
              + ":"
              + URL_PASSWORD
              + "@127.0.0.1:"
              + server.port()
              + "/v1?subscription-key="
              + QUERY_VALUE
              + "&api-version=2024-10-21";
      List<String> outputs = new ArrayList<>();

      // a refused key (from the config file): 401s quoting every header and the URL
      Path refused = config("refused.json", baseUrl, KEY_IN_FILE, "[\"refuse\"]");
      String topic1 = TestKafka.uniqueName("secrets");
      Path requests1 = dir.resolve("requests1.jsonl");
      Child run1 = produce(kafka, refused, topic1, requests1, Map.of());
      assertNotEquals(0, run1.exit, run1.output);
      assertTrue(run1.output.contains("HTTP 401"), run1.output);
      outputs.add(run1.output);
      outputs.add(Files.readString(requests1));
      outputs.add(topicBytes(kafka, topic1));

      // the key from the environment: a normal stream, an in-band error and an HTML page, each
      // quoting what the server received
      Path answered = config("answered.json", baseUrl, null, "[\"ok\", \"inband\", \"html\"]");
      String topic2 = TestKafka.uniqueName("secrets");
      Path requests2 = dir.resolve("requests2.jsonl");
      Child run2 = produce(kafka, answered, topic2, requests2, Map.of("TPOT_API_KEY", KEY_IN_ENV));
      String requestsOut2 = Files.readString(requests2);
      assertTrue(requestsOut2.contains("\"ok\""), requestsOut2);
      assertTrue(server.sawKey(KEY_IN_ENV), "the key from the environment was sent");
      outputs.add(run2.output);
      outputs.add(requestsOut2);
      String topicText2 = topicBytes(kafka, topic2);
      assertTrue(topicText2.contains("protocol"), "the in-band error was published");
      outputs.add(topicText2);

      // tpot models: a 401 to GET /v1/models
      Child models = child(List.of("models", "--config", refused.toString()), Map.of());
      assertNotEquals(0, models.exit, models.output);
      outputs.add(models.output);

      assertTrue(server.sawKey(KEY_IN_FILE), "the key from the file was sent");
      assertTrue(server.saw(HEADER_AZURE) && server.saw(HEADER_APIM) && server.saw(HEADER_FLAG));

      // the proxy, refusing an upstream with credentials: its message must not quote them
      TpotCli.Result proxy =
          tpot(
              "proxy",
              "--listen",
              "127.0.0.1:0",
              "--upstream",
              "http://"
                  + UPSTREAM_USER
                  + ":"
                  + UPSTREAM_PASSWORD
                  + "@127.0.0.1:1/v1?key="
                  + UPSTREAM_QUERY,
              "--bootstrap-servers",
              kafka.bootstrapServers());
      assertNotEquals(0, proxy.exit());
      assertTrue(proxy.err().contains("has a query or fragment"), proxy.err());
      outputs.add(proxy.out() + proxy.err());

      outputs.forEach(NoSecretLeavesTest::assertNoSecret);
    }
  }

  /**
   * Requests through a running {@code tpot proxy} carry a key, a header and a query value of their
   * own, which the upstream quotes back in a refusal, an error event and an HTML page: the proxy's
   * topic and its output (logs at DEBUG) hold none of them.
   */
  @Test
  void aProxiedRequestsSecretsReachNeitherTheTopicNorTheLogs(TestKafka kafka) throws Exception {
    try (EchoingServer server = new EchoingServer()) {
      String topic = TestKafka.uniqueName("secrets-proxy");
      Path log = Files.createTempFile(dir, "proxy", ".log");
      Process proxy =
          start(
              List.of(
                  "proxy",
                  "--listen",
                  "127.0.0.1:0",
                  "--upstream",
                  "http://127.0.0.1:" + server.port() + "/gw",
                  "--prime",
                  "0",
                  "--metrics-port",
                  "-1",
                  "--bootstrap-servers",
                  kafka.bootstrapServers(),
                  "--topic",
                  topic),
              Map.of(),
              log);
      String output;
      try {
        java.util.regex.Pattern listening =
            java.util.regex.Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");
        String port =
            await()
                .atMost(Duration.ofSeconds(60))
                .until(
                    () -> {
                      java.util.regex.Matcher m = listening.matcher(Files.readString(log));
                      assertTrue(proxy.isAlive(), () -> "the proxy ended: " + read(log));
                      return m.find() ? m.group(1) : null;
                    },
                    java.util.Objects::nonNull);
        java.net.http.HttpClient client =
            java.net.http.HttpClient.newBuilder()
                .version(java.net.http.HttpClient.Version.HTTP_1_1)
                .build();
        for (String model : List.of("ok", "refuse", "inband", "html")) {
          java.net.http.HttpResponse<String> response =
              client.send(
                  java.net.http.HttpRequest.newBuilder(
                          java.net.URI.create(
                              "http://127.0.0.1:"
                                  + port
                                  + "/v1/chat/completions?subscription-key="
                                  + CLIENT_QUERY))
                      .header("Authorization", "Bearer " + CLIENT_KEY)
                      .header("api-key", CLIENT_HEADER)
                      .header("Content-Type", "application/json")
                      .POST(
                          java.net.http.HttpRequest.BodyPublishers.ofString(
                              "{\"model\": \"" + model + "\", \"stream\": true}"))
                      .build(),
                  java.net.http.HttpResponse.BodyHandlers.ofString());
          assertTrue(response.body().contains(CLIENT_KEY) || model.equals("ok"), response.body());
        }
        assertTrue(server.sawKey(CLIENT_KEY), "the client's key went upstream");
      } finally {
        proxy.destroy(); // SIGTERM: the proxy drains and publishes its final heartbeats
        assertTrue(proxy.waitFor(60, TimeUnit.SECONDS), "the proxy stops after SIGTERM");
        output = read(log);
      }
      String topicText = topicBytes(kafka, topic);
      assertTrue(topicText.contains("\"refuse\""), "the proxied requests were measured");
      for (String text : List.of(output, topicText)) {
        assertNoSecret(text);
      }
    }
  }

  private static void assertNoSecret(String output) {
    PLANTED.forEach(
        (where, secret) -> {
          for (String form : List.of(secret, URLEncoder.encode(secret, StandardCharsets.UTF_8))) {
            assertTrue(!output.contains(form), () -> "the secret of " + where + " in:\n" + output);
          }
        });
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private Path config(String name, String baseUrl, String apiKey, String models) throws Exception {
    JsonObject config =
        new JsonObject()
            .put("base_url", baseUrl)
            .put("models", new io.vertx.core.json.JsonArray(models))
            .put("concurrency", 2)
            .put("total_requests", 3)
            .put("max_tokens", 8)
            .put("timeout", 20)
            .put("warmup", "0")
            .put(
                "headers",
                new JsonObject()
                    .put("api-key", HEADER_AZURE)
                    .put("Ocp-Apim-Subscription-Key", HEADER_APIM)
                    .put("Content-Type", "application/json"));
    if (apiKey != null) {
      config.put("api_key", apiKey);
    }
    Path file = dir.resolve(name);
    Files.writeString(file, config.encodePrettily());
    return file;
  }

  private Child produce(
      TestKafka kafka, Path config, String topic, Path requestsOut, Map<String, String> env)
      throws Exception {
    return child(
        List.of(
            "produce",
            "--config",
            config.toString(),
            "--bootstrap-servers",
            kafka.bootstrapServers(),
            "--topic",
            topic,
            "--requests-out",
            requestsOut.toString(),
            "--set",
            "headers.X-Flag-Token=" + HEADER_FLAG),
        env);
  }

  /** What a child {@code tpot} printed (stdout and stderr, the logs at DEBUG) and its exit. */
  record Child(int exit, String output) {}

  private Child child(List<String> args, Map<String, String> env) throws Exception {
    Path log = Files.createTempFile(dir, "child", ".log");
    Process process = start(args, env, log);
    try {
      assertTrue(process.waitFor(120, TimeUnit.SECONDS), "tpot " + args.get(0) + " ends");
    } finally {
      process.destroyForcibly();
    }
    return new Child(process.exitValue(), Files.readString(log));
  }

  /**
   * {@code tpot args} in a JVM of its own, with the product's logging at DEBUG, stack traces, and
   * an HTTP proxy with credentials in the environment (bypassed for 127.0.0.1); stdout and stderr
   * to {@code log}.
   */
  private static Process start(List<String> args, Map<String, String> env, Path log)
      throws java.io.IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx256m");
    // the product's logging (the test class path's log4j2-test.xml would win otherwise)
    command.add("-Dlog4j2.configurationFile=classpath:log4j2.xml");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(Tpot.class.getName());
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    Map<String, String> childEnv = builder.environment();
    childEnv.keySet().removeIf(k -> k.endsWith("API_KEY") || k.toLowerCase().endsWith("_proxy"));
    childEnv.put("TPOT_LOG_LEVEL", "DEBUG");
    childEnv.put("TPOT_DEBUG", "1"); // stack traces too
    childEnv.put("HTTP_PROXY", "http://" + PROXY_USER + ":" + PROXY_PASSWORD + "@127.0.0.1:9");
    childEnv.put("NO_PROXY", "127.0.0.1");
    childEnv.putAll(env);
    return builder.redirectOutput(log.toFile()).start();
  }

  /** Every record of {@code topic}, keys and values, as text (all bytes kept). */
  private static String topicBytes(TestKafka kafka, String topic) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(kafka.consumerProps(TestKafka.uniqueName("secrets")))) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .collect(Collectors.toList());
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      assertTrue(end.values().stream().mapToLong(Long::longValue).sum() > 0, "events published");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                  if (r.key() != null) {
                    all.writeBytes(r.key().getBytes(StandardCharsets.UTF_8));
                  }
                  if (r.value() != null) {
                    all.writeBytes(r.value());
                  }
                  all.write('\n');
                }
                return partitions.stream().allMatch(p -> consumer.position(p) >= end.get(p));
              });
    }
    return all.toString(StandardCharsets.ISO_8859_1);
  }

  /**
   * Quotes back every byte of each request it receives: a 401 for model {@code refuse} and for
   * {@code GET /models}, an error event for {@code inband}, an HTML page for {@code html}, and a
   * normal stream for any other model.
   */
  static final class EchoingServer implements AutoCloseable {
    private static final java.util.Set<String> ORDINARY =
        java.util.Set.of(
            "accept",
            "accept-encoding",
            "content-type",
            "content-length",
            "host",
            "user-agent",
            "x-request-id");
    private final Vertx vertx = Vertx.vertx();
    private final List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final HttpServer server;

    EchoingServer() throws Exception {
      server =
          vertx
              .createHttpServer()
              .requestHandler(this::handle)
              .listen(0, "127.0.0.1")
              .toCompletionStage()
              .toCompletableFuture()
              .get(10, TimeUnit.SECONDS);
    }

    int port() {
      return server.actualPort();
    }

    boolean saw(String text) {
      return seen.stream().anyMatch(s -> s.contains(text));
    }

    boolean sawKey(String key) {
      return saw("Bearer " + key);
    }

    private void handle(HttpServerRequest req) {
      req.body()
          .onSuccess(
              body -> {
                // the credentials first: a message keeps only the start of what a server says
                StringBuilder echo = new StringBuilder();
                req.headers()
                    .forEach(
                        h -> {
                          if (!ORDINARY.contains(h.getKey().toLowerCase(Locale.ROOT))) {
                            echo.append(h.getValue()).append(' ');
                          }
                        });
                echo.append(req.method()).append(' ').append(req.uri());
                String quoted = echo.toString();
                seen.add(quoted + " | body " + body);
                String model =
                    body.length() == 0 ? "" : new JsonObject(body).getString("model", "");
                String error =
                    new JsonObject()
                        .put(
                            "error",
                            new JsonObject()
                                .put("message", "Incorrect API key or subscription: " + quoted))
                        .encode();
                if (req.path().endsWith("/models") || model.equals("refuse")) {
                  req.response()
                      .setStatusCode(401)
                      .putHeader("Content-Type", "application/json")
                      .end(error);
                } else if (model.equals("inband")) {
                  req.response()
                      .putHeader("Content-Type", "text/event-stream")
                      .end("data: " + error + "\n\n");
                } else if (model.equals("html")) {
                  req.response()
                      .putHeader("Content-Type", "text/html")
                      .end("<html><head><title>Sign in: " + quoted + "</title></head></html>");
                } else {
                  String chunk =
                      "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                          + "\"delta\":{\"content\":\"tok\"},\"finish_reason\":null}]}";
                  req.response()
                      .putHeader("Content-Type", "text/event-stream")
                      .end("data: " + chunk + "\n\ndata: " + chunk + "\n\ndata: [DONE]\n\n");
                }
              });
    }

    @Override
    public void close() {
      vertx.close();
    }
  }
}

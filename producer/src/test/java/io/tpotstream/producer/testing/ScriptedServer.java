package io.tpotstream.producer.testing;

import io.tpotstream.producer.http.TlsFiles;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A real HTTP server for tests that writes exact bytes with chosen delays: each model name in the
 * request body picks a {@link Script}. It records the headers of every request it received.
 */
public final class ScriptedServer implements AutoCloseable {
  private final Vertx vertx = Vertx.vertx();
  private final Map<String, Script> scripts = new ConcurrentHashMap<>();
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private final HttpServer server;

  /** One request as the server saw it. */
  public record Received(String path, String model, MultiMap headers, JsonObject body) {}

  public ScriptedServer() {
    this(false);
  }

  /**
   * With {@code tls}, the server speaks HTTPS with a certificate from a new CA no client trusts.
   */
  public ScriptedServer(boolean tls) {
    this(tls ? TestPki.create().server() : null);
  }

  /**
   * With {@code tls} (null: plain HTTP), the server speaks HTTPS with its certificate and key; when
   * {@code tls} names a CA file, it requires client certificates signed by that CA (mutual TLS).
   */
  public ScriptedServer(TlsFiles tls) {
    HttpServerOptions options = new HttpServerOptions();
    if (tls != null) {
      tls.applyTo(options).setSsl(true);
      if (tls.caFile() != null) {
        options.setClientAuth(ClientAuth.REQUIRED);
      }
    }
    server = vertx.createHttpServer(options).requestHandler(this::handle);
    try {
      server
          .listen(0, "127.0.0.1")
          .toCompletionStage()
          .toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  public ScriptedServer on(String model, Script script) {
    scripts.put(model, script);
    return this;
  }

  public int port() {
    return server.actualPort();
  }

  /** {@code http://127.0.0.1:PORT} (no /v1: the producer adds it). */
  public String baseUrl() {
    return "http://127.0.0.1:" + port();
  }

  /** {@code https://127.0.0.1:PORT}, for a server made with TLS. */
  public String httpsUrl() {
    return "https://127.0.0.1:" + port();
  }

  public List<Received> received() {
    return received;
  }

  private void handle(HttpServerRequest request) {
    request
        .body()
        .onSuccess(
            body -> {
              JsonObject json = body.length() == 0 ? new JsonObject() : new JsonObject(body);
              String model = json.getString("model", "");
              received.add(new Received(request.path(), model, request.headers(), json));
              Script script =
                  request.path().endsWith("/models") ? scripts.get("/models") : scripts.get(model);
              if (script == null) {
                request
                    .response()
                    .setStatusCode(404)
                    .end("{\"error\":{\"message\":\"no script for " + model + "\"}}");
                return;
              }
              play(request, request.response(), script, 0);
            });
  }

  private void play(
      HttpServerRequest request, HttpServerResponse response, Script script, int step) {
    if (step == 0) {
      response.setStatusCode(script.status);
      script.headers.forEach(response::putHeader);
      response.setChunked(true);
    }
    if (step == script.steps.size()) {
      response.end();
      return;
    }
    Step s = script.steps.get(step);
    Runnable next = () -> play(request, response, script, step + 1);
    switch (s.kind) {
      case WRITE -> {
        response.write(Buffer.buffer(s.bytes));
        next.run();
      }
      case PAUSE -> vertx.setTimer(s.delayMs, id -> next.run());
      case CUT -> request.connection().close();
      case RUN -> {
        s.action.run();
        next.run();
      }
      case END -> response.end();
    }
  }

  @Override
  public void close() {
    vertx.close().toCompletionStage().toCompletableFuture().join();
  }

  enum Kind {
    WRITE,
    PAUSE,
    CUT,
    RUN,
    END
  }

  record Step(Kind kind, byte[] bytes, long delayMs, Runnable action) {
    Step(Kind kind, byte[] bytes, long delayMs) {
      this(kind, bytes, delayMs, null);
    }
  }

  /** What to answer: a status, headers, then writes, pauses and an end or a cut connection. */
  public static final class Script {
    final int status;
    final Map<String, String> headers = new java.util.LinkedHashMap<>();
    final List<Step> steps = new ArrayList<>();

    private Script(int status) {
      this.status = status;
    }

    /** A 200 {@code text/event-stream} answer. */
    public static Script sse() {
      return new Script(200).header("Content-Type", "text/event-stream");
    }

    public static Script status(int status, String contentType) {
      return new Script(status).header("Content-Type", contentType);
    }

    public Script header(String name, String value) {
      headers.put(name, value);
      return this;
    }

    public Script write(String text) {
      return write(text.getBytes(StandardCharsets.UTF_8));
    }

    public Script write(byte[] bytes) {
      steps.add(new Step(Kind.WRITE, bytes, 0));
      return this;
    }

    /** Writes {@code text} in pieces of {@code size} bytes, {@code delayMs} apart. */
    public Script writeSplit(String text, int size, long delayMs) {
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      for (int i = 0; i < bytes.length; i += size) {
        write(java.util.Arrays.copyOfRange(bytes, i, Math.min(bytes.length, i + size)));
        if (delayMs > 0) {
          pause(delayMs);
        }
      }
      return this;
    }

    public Script pause(long ms) {
      steps.add(new Step(Kind.PAUSE, null, ms));
      return this;
    }

    /** Runs {@code action} on the server's event loop at this point of the answer. */
    public Script run(Runnable action) {
      steps.add(new Step(Kind.RUN, null, 0, action));
      return this;
    }

    /** Closes the connection without ending the chunked body. */
    public Script cut() {
      steps.add(new Step(Kind.CUT, null, 0));
      return this;
    }
  }

  /** OpenAI chunk JSON with delta content {@code text}. */
  public static String content(String text) {
    return "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
        + text
        + "\"},\"finish_reason\":null}]}";
  }

  public static final String ROLE =
      "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}";

  public static final String FINISH =
      "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}";

  public static String usage(int prompt, int completion) {
    return "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":"
        + prompt
        + ",\"completion_tokens\":"
        + completion
        + ",\"total_tokens\":"
        + (prompt + completion)
        + "}}";
  }

  /** A complete, well-formed OpenAI stream of {@code tokens} content chunks with LF framing. */
  public static String openAiStream(int tokens) {
    StringBuilder s = new StringBuilder("data: " + ROLE + "\n\n");
    for (int i = 0; i < tokens; i++) {
      s.append("data: ").append(content("t" + i)).append("\n\n");
    }
    s.append("data: ").append(FINISH).append("\n\n");
    s.append("data: ").append(usage(7, tokens)).append("\n\n");
    s.append("data: [DONE]\n\n");
    return s.toString();
  }
}

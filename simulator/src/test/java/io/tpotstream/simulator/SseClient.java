package io.tpotstream.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A plain SSE client on Vert.x's HTTP client (HTTP/1.1, no compression, one event loop of its own):
 * each {@code data:} line is stamped with {@link System#nanoTime()} when the bytes that end it
 * arrive, as a producer would.
 */
final class SseClient {
  private static final Vertx VERTX = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
  private static final HttpClientAgent HTTP =
      VERTX.createHttpClient(
          new HttpClientOptions().setTcpNoDelay(true).setDecompressionSupported(false),
          new PoolOptions().setHttp1MaxSize(200));
  // every request starts on this one context: a response then reaches its handlers in the same
  // event-loop turn as its headers, so no byte that came with them is lost
  private static final Context CONTEXT = VERTX.getOrCreateContext();

  /** One SSE event: its {@code event:} name (or null), its {@code data:} text, its arrival. */
  record Event(String name, String data, long arrivalNs) {
    JsonNode json() {
      try {
        return Json.MAPPER.readTree(data);
      } catch (IOException e) {
        throw new UncheckedIOException("not JSON: " + data, e);
      }
    }

    boolean isJson() {
      try {
        Json.MAPPER.readTree(data);
        return true;
      } catch (IOException e) {
        return false;
      }
    }
  }

  /**
   * @param headers response headers, names case-insensitive
   * @param truncated true when the connection closed before the body's end
   */
  record Response(
      int status, Map<String, String> headers, List<Event> events, String body, boolean truncated) {
    String header(String name) {
      return headers.get(name);
    }

    JsonNode json() {
      try {
        return Json.MAPPER.readTree(body);
      } catch (IOException e) {
        throw new UncheckedIOException("not JSON: " + body, e);
      }
    }

    List<Event> named(String name) {
      return events.stream().filter(e -> name.equals(e.name())).toList();
    }
  }

  private SseClient() {}

  static Response post(String url, String json) {
    return post(url, json, Map.of());
  }

  /** POSTs {@code json} and reads the whole answer, as events when it is an event stream. */
  static Response post(String url, String json, Map<String, String> headers) {
    return await(postAsync(url, json, headers));
  }

  static CompletableFuture<Response> postAsync(
      String url, String json, Map<String, String> headers) {
    return send(HttpMethod.POST, url, json, headers).toCompletionStage().toCompletableFuture();
  }

  static Response get(String url) {
    return await(
        send(HttpMethod.GET, url, null, Map.of()).toCompletionStage().toCompletableFuture());
  }

  static Response delete(String url) {
    return await(
        send(HttpMethod.DELETE, url, null, Map.of()).toCompletionStage().toCompletableFuture());
  }

  static Response await(CompletableFuture<Response> response) {
    try {
      return response.get(60, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException("request failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("no complete response within 60 s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static Future<Response> send(
      HttpMethod method, String url, String body, Map<String, String> headers) {
    RequestOptions options =
        new RequestOptions()
            .setMethod(method)
            .setAbsoluteURI(url)
            .putHeader("Accept-Encoding", "identity");
    if (body != null) {
      options.putHeader("Content-Type", "application/json");
    }
    headers.forEach(options::putHeader);
    Promise<Response> response = Promise.promise();
    CONTEXT.runOnContext(
        ignored ->
            HTTP.request(options)
                .compose(request -> body == null ? request.send() : request.send(body))
                .compose(SseClient::read)
                .onComplete(response));
    return response.future();
  }

  private static Future<Response> read(HttpClientResponse response) {
    Promise<Response> result = Promise.promise();
    Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    response.headers().forEach(header -> headers.putIfAbsent(header.getKey(), header.getValue()));
    boolean stream = headers.getOrDefault("Content-Type", "").startsWith("text/event-stream");
    Lines lines = new Lines(stream);
    response.handler(buffer -> lines.feed(buffer, System.nanoTime()));
    response.endHandler(
        ignored ->
            result.tryComplete(
                new Response(response.statusCode(), headers, lines.events, lines.body(), false)));
    response.exceptionHandler(
        ignored ->
            result.tryComplete(
                new Response(response.statusCode(), headers, lines.events, lines.body(), true)));
    return result.future();
  }

  /** Splits the body into lines and SSE events; only its event loop touches it. */
  private static final class Lines {
    final boolean stream;
    final List<Event> events = new ArrayList<>();
    final StringBuilder body = new StringBuilder();
    final StringBuilder line = new StringBuilder();
    String name;

    Lines(boolean stream) {
      this.stream = stream;
    }

    void feed(Buffer buffer, long arrivalNs) {
      String text = buffer.toString(StandardCharsets.UTF_8);
      body.append(text);
      if (!stream) {
        return;
      }
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        if (c == '\n') {
          endLine(line.toString(), arrivalNs);
          line.setLength(0);
        } else {
          line.append(c);
        }
      }
    }

    private void endLine(String text, long arrivalNs) {
      if (text.startsWith("event: ")) {
        name = text.substring("event: ".length());
      } else if (text.startsWith("data: ")) {
        events.add(new Event(name, text.substring("data: ".length()), arrivalNs));
      } else if (text.isEmpty()) {
        name = null;
      }
    }

    String body() {
      return body.toString();
    }
  }
}

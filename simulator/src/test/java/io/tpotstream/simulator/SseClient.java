package io.tpotstream.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A plain SSE client on the JDK's HttpClient (HTTP/1.1, no compression): each event is stamped with
 * {@link System#nanoTime()} when its {@code data:} line arrives.
 */
final class SseClient {
  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

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
   * @param truncated true when the connection ended in the middle of the chunked body
   */
  record Response(
      int status, HttpHeaders headers, List<Event> events, String body, boolean truncated) {
    String header(String name) {
      return headers.firstValue(name).orElse(null);
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
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(60))
            .header("Content-Type", "application/json")
            .header("Accept-Encoding", "identity")
            .POST(HttpRequest.BodyPublishers.ofString(json));
    headers.forEach(request::header);
    return send(request.build());
  }

  static Response get(String url) {
    return send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build());
  }

  private static Response send(HttpRequest request) {
    HttpResponse<InputStream> response;
    try {
      response = HTTP.send(request, HttpResponse.BodyHandlers.ofInputStream());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    boolean stream =
        response.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream");
    List<Event> events = new ArrayList<>();
    StringBuilder body = new StringBuilder();
    boolean truncated = false;
    try (BufferedReader reader =
        new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
      String name = null;
      String line;
      while ((line = reader.readLine()) != null) {
        long arrivalNs = System.nanoTime();
        body.append(line).append('\n');
        if (!stream) {
          continue;
        }
        if (line.startsWith("event: ")) {
          name = line.substring("event: ".length());
        } else if (line.startsWith("data: ")) {
          events.add(new Event(name, line.substring("data: ".length()), arrivalNs));
        } else if (line.isEmpty()) {
          name = null;
        }
      }
    } catch (IOException e) {
      truncated = true;
    }
    return new Response(
        response.statusCode(), response.headers(), events, body.toString(), truncated);
  }
}

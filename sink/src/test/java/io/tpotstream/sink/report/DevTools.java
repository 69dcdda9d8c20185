package io.tpotstream.sink.report;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tpotstream.common.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One page in headless Chromium, driven as a user would over the DevTools protocol (the JDK's
 * WebSocket client): run an expression in the page, move, press and release the mouse.
 */
final class DevTools implements AutoCloseable {
  private final Process chromium;
  private final WebSocket socket;
  private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
  private final AtomicInteger ids = new AtomicInteger();

  private DevTools(Process chromium, WebSocket socket) {
    this.chromium = chromium;
    this.socket = socket;
  }

  /** Starts Chromium on {@code page} with a window of {@code width} × {@code height} px. */
  static DevTools open(String chromium, Path profile, URI page, int width, int height)
      throws Exception {
    Process process =
        new ProcessBuilder(
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--hide-scrollbars",
                "--user-data-dir=" + profile,
                "--window-size=" + width + "," + height,
                "--remote-debugging-port=0",
                page.toString())
            .redirectErrorStream(true)
            .redirectOutput(profile.resolve("chromium-devtools.log").toFile())
            .start();
    try {
      return connect(process, profile.resolve("DevToolsActivePort"));
    } catch (Exception | AssertionError e) {
      process.destroyForcibly();
      throw e;
    }
  }

  private static DevTools connect(Process process, Path portFile) throws Exception {
    await()
        .atMost(Duration.ofMinutes(1))
        .ignoreExceptions()
        .until(() -> Files.readAllLines(portFile).size() >= 2);
    String port = Files.readAllLines(portFile).get(0).trim();
    HttpClient http = HttpClient.newHttpClient();
    String pages =
        http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list"))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    String url = null;
    for (JsonNode target : Json.MAPPER.readTree(pages)) {
      if ("page".equals(target.get("type").asText())) {
        url = target.get("webSocketDebuggerUrl").asText();
      }
    }
    if (url == null) {
      throw new IllegalStateException("chromium shows no page: " + pages);
    }
    Listener listener = new Listener();
    WebSocket socket =
        http.newWebSocketBuilder().buildAsync(URI.create(url), listener).get(1, TimeUnit.MINUTES);
    DevTools devTools = new DevTools(process, socket);
    listener.devTools = devTools;
    return devTools;
  }

  /** The value of {@code expression} in the page (JSON-serialisable values only). */
  JsonNode evaluate(String expression) throws Exception {
    JsonNode result =
        call("Runtime.evaluate", Map.of("expression", expression, "returnByValue", true));
    if (result.has("exceptionDetails")) {
      throw new IllegalStateException(
          expression + " failed in the page: " + result.get("exceptionDetails"));
    }
    return result.get("result").get("value");
  }

  /** A mouse event at (x, y) in CSS px: {@code mouseMoved}, {@code mousePressed}, ... */
  void mouse(String type, double x, double y, int clickCount) throws Exception {
    boolean down = type.equals("mousePressed") || clickCount < 0;
    call(
        "Input.dispatchMouseEvent",
        Map.of(
            "type",
            type,
            "x",
            x,
            "y",
            y,
            "button",
            type.equals("mouseMoved") && !down ? "none" : "left",
            "buttons",
            down ? 1 : 0,
            "clickCount",
            Math.max(clickCount, 0)));
  }

  /** A left click (or a double click: {@code clicks} 2) at (x, y). */
  void click(double x, double y, int clicks) throws Exception {
    for (int c = 1; c <= clicks; c++) {
      mouse("mousePressed", x, y, c);
      mouse("mouseReleased", x, y, c);
    }
  }

  /** A drag with the left button from (x1, y) to (x2, y). */
  void drag(double x1, double x2, double y) throws Exception {
    mouse("mouseMoved", x1, y, 0);
    mouse("mousePressed", x1, y, 1);
    for (int step = 1; step <= 5; step++) {
      mouse("mouseMoved", x1 + (x2 - x1) * step / 5, y, -1);
    }
    mouse("mouseReleased", x2, y, 1);
  }

  private JsonNode call(String method, Map<String, Object> params) throws Exception {
    int id = ids.incrementAndGet();
    CompletableFuture<JsonNode> reply = new CompletableFuture<>();
    pending.put(id, reply);
    ObjectNode message = Json.MAPPER.createObjectNode();
    message.put("id", id).put("method", method).set("params", Json.MAPPER.valueToTree(params));
    socket.sendText(Json.MAPPER.writeValueAsString(message), true).get(1, TimeUnit.MINUTES);
    JsonNode response = reply.get(1, TimeUnit.MINUTES);
    if (response.has("error")) {
      throw new IllegalStateException(method + " failed: " + response.get("error"));
    }
    return response.get("result");
  }

  @Override
  public void close() throws Exception {
    socket.sendClose(WebSocket.NORMAL_CLOSURE, "done");
    chromium.destroy();
    if (!chromium.waitFor(1, TimeUnit.MINUTES)) {
      chromium.destroyForcibly();
    }
  }

  /** Collects each message (it may come in parts) and completes its call. */
  private static final class Listener implements WebSocket.Listener {
    private final StringBuilder text = new StringBuilder();
    private volatile DevTools devTools;

    @Override
    public CompletionStage<?> onText(WebSocket socket, CharSequence part, boolean last) {
      text.append(part);
      if (last) {
        try {
          JsonNode message = Json.MAPPER.readTree(text.toString());
          if (message.has("id") && devTools != null) {
            CompletableFuture<JsonNode> reply = devTools.pending.remove(message.get("id").asInt());
            if (reply != null) {
              reply.complete(message);
            }
          }
        } catch (IOException e) {
          throw new IllegalStateException("not JSON from chromium: " + text, e);
        }
        text.setLength(0);
      }
      socket.request(1);
      return null;
    }
  }

  /**
   * The left and right edges, the vertical and the horizontal centre of the element {@code element}
   * (a JavaScript expression), in CSS px.
   */
  double[] box(String element) throws Exception {
    JsonNode box =
        evaluate(
            "(() => { const r = ("
                + element
                + ").getBoundingClientRect(); return [r.left, r.right, r.top + r.height / 2,"
                + " r.left + r.width / 2]; })()");
    return new double[] {
      box.get(0).asDouble(), box.get(1).asDouble(), box.get(2).asDouble(), box.get(3).asDouble()
    };
  }
}

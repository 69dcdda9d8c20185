package io.tpotstream.proxy.http;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tpotstream.proxy.measure.Route;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;

/**
 * The proxy's own answer when the upstream gave none: 502 (unreachable, refused, reset before a
 * response), 503 (the request waited in the proxy's own queue for an upstream connection and was
 * never sent) or 504 (no connection or no response in time), with a JSON body in the route's error
 * shape (OpenAI's {@code {"error": {...}}} or Anthropic's {@code {"type": "error", ...}}), so that
 * SDKs show its message. The message says what happened and what to check; it never holds a request
 * header or body.
 *
 * @param status 502, 503, 504, or 501 for what the proxy does not forward (WebSocket, CONNECT)
 * @param code a short machine-readable reason, e.g. {@code upstream_unreachable}
 * @param message one sentence for a person
 */
record GatewayError(int status, String code, String message) {
  static final String HEADER = "X-Tpot-Proxy-Error";

  /** Sends this error as the whole response. */
  void send(HttpServerResponse response, Route route) {
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    if (route == Route.ANTHROPIC) {
      body.put("type", "error");
      ObjectNode error = body.putObject("error");
      error.put("type", status == 504 ? "timeout_error" : "api_error");
      error.put("message", message);
    } else {
      ObjectNode error = body.putObject("error");
      error.put("message", message);
      error.put("type", "tpot_proxy_error");
      error.putNull("param");
      error.put("code", code);
    }
    response
        .setStatusCode(status)
        .putHeader("Content-Type", "application/json")
        .putHeader(HEADER, code)
        .end(Buffer.buffer(body.toString() + "\n"));
  }
}

package io.tpotstream.producer.http;

/**
 * Why a request failed (docs/design.md, "Errors a user meets"); {@link #wire()} is the event's
 * value.
 */
public enum ErrorClass {
  HTTP_401("http_401"),
  HTTP_403("http_403"),
  HTTP_404("http_404"),
  HTTP_429("http_429"),
  HTTP_4XX("http_4xx"),
  HTTP_5XX("http_5xx"),
  TIMEOUT_CONNECT("timeout_connect"),
  TIMEOUT_FIRST_TOKEN("timeout_first_token"),
  TIMEOUT_IDLE("timeout_idle"),
  TIMEOUT_TOTAL("timeout_total"),
  CONNECTION("connection"),
  PROTOCOL("protocol"),
  TRUNCATED("truncated"),
  CANCELLED("cancelled"),
  /** The proxy's own queue: no pooled upstream connection free in time (never the upstream's). */
  PROXY_QUEUE("proxy_queue");

  private final String wire;

  ErrorClass(String wire) {
    this.wire = wire;
  }

  public String wire() {
    return wire;
  }

  /** The class of a non-2xx HTTP status. */
  public static ErrorClass ofStatus(int status) {
    return switch (status) {
      case 401 -> HTTP_401;
      case 403 -> HTTP_403;
      case 404 -> HTTP_404;
      case 429 -> HTTP_429;
      default -> status >= 500 ? HTTP_5XX : HTTP_4XX;
    };
  }
}

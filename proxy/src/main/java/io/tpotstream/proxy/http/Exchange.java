package io.tpotstream.proxy.http;

import io.netty.channel.ConnectTimeoutException;
import io.tpotstream.producer.http.ArrivalStamp;
import io.tpotstream.producer.http.ClientTls;
import io.tpotstream.proxy.http.ExchangeObserver.Failure;
import io.tpotstream.proxy.measure.Route;
import io.tpotstream.proxy.metrics.ProxyMetrics;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import java.security.cert.CertificateException;
import java.util.Locale;
import java.util.concurrent.TimeoutException;

/**
 * One request forwarded upstream and its response forwarded back, on one event loop (the loop that
 * owns both connections). Bytes go through unchanged and at once: each upstream chunk is written to
 * the client in the handler that read it, before anything else looks at it; only hop-by-hop headers
 * are not copied and {@code Host} names the upstream. Backpressure, not buffering: a side that
 * cannot take more pauses the other. A client that goes away cancels the upstream call; an upstream
 * that gives no response gets the client a 502 or 504 with a clear body; an upstream that breaks
 * mid-response breaks the client's response too, so that the client sees what it would have seen
 * directly.
 */
final class Exchange {
  private final HttpServerRequest in;
  private final HttpServerResponse out;
  private final HttpClient client;
  private final Upstream upstream;
  private final ClientTls upstreamTls;
  private final long connectTimeoutMs;
  private final long idleTimeoutMs;
  private final ProxyMetrics metrics;
  private final Route route;
  private final Runnable onDone;
  private ExchangeObserver observer = ExchangeObserver.NONE;
  private HttpClientRequest upstreamRequest;
  private HttpClientResponse upstreamResponse;
  private ArrivalStamp stamp;
  private long reads;
  private boolean finished;

  Exchange(
      HttpServerRequest in,
      HttpClient client,
      Upstream upstream,
      ClientTls upstreamTls,
      long connectTimeoutMs,
      long idleTimeoutMs,
      ProxyMetrics metrics,
      Runnable onDone) {
    this.in = in;
    this.out = in.response();
    this.client = client;
    this.upstream = upstream;
    this.upstreamTls = upstreamTls;
    this.connectTimeoutMs = connectTimeoutMs;
    this.idleTimeoutMs = idleTimeoutMs;
    this.metrics = metrics;
    this.route = Route.of(in.method(), in.path());
    this.onDone = onDone;
  }

  Route route() {
    return route;
  }

  /** Starts forwarding; {@code observers} decides whether and how this exchange is measured. */
  void start(ObserverFactory observers) {
    in.pause();
    metrics.requestStarted();
    RequestOptions options =
        new RequestOptions()
            .setMethod(in.method())
            .setHost(upstream.host())
            .setPort(upstream.port())
            .setSsl(upstream.ssl())
            .setURI(upstream.target(originForm()))
            .setConnectTimeout(connectTimeoutMs)
            .setIdleTimeout(idleTimeoutMs)
            .setFollowRedirects(false);
    MultiMap headers = HttpHeaders.headers();
    Headers.copyRequest(in.headers(), headers, upstream.authority());
    options.setHeaders(headers);
    out.closeHandler(v -> clientGone());
    in.exceptionHandler(t -> clientGone());
    // the request start: the proxy asks its client to send (before any pool wait or connect)
    long startNs = System.nanoTime();
    observer = observers.begin(in, route, startNs);
    client
        .request(options)
        .onComplete(
            ar -> {
              if (ar.succeeded()) {
                forwardRequest(ar.result());
              } else {
                noResponse(ar.cause(), true);
              }
            });
  }

  /** Ends the exchange at once (the proxy is stopping): both connections are reset. */
  void abort() {
    if (finished) {
      return;
    }
    finish();
    if (upstreamRequest != null) {
      upstreamRequest.reset();
    }
    out.reset();
    observer.failed(Failure.STOPPED, System.nanoTime());
  }

  private void forwardRequest(HttpClientRequest request) {
    if (finished) {
      request.reset();
      return;
    }
    upstreamRequest = request;
    // the time of each read of the upstream connection, taken first thing in its pipeline
    stamp = ArrivalStamp.of(request.connection());
    if (isChunked(in.headers())) {
      request.setChunked(true);
    }
    request
        .response()
        .onComplete(
            ar -> {
              if (ar.succeeded()) {
                forwardResponse(ar.result());
              } else {
                noResponse(ar.cause(), false);
              }
            });
    in.handler(
        chunk -> {
          request.write(chunk);
          observer.requestBody(chunk);
          if (request.writeQueueFull()) {
            in.pause();
            request.drainHandler(v -> in.resume());
          }
        });
    in.endHandler(
        v -> {
          request.end();
          observer.requestEnd();
        });
    in.resume();
  }

  private void forwardResponse(HttpClientResponse response) {
    if (finished) {
      return;
    }
    upstreamResponse = response;
    int status = response.statusCode();
    out.setStatusCode(status);
    if (response.statusMessage() != null) {
      out.setStatusMessage(response.statusMessage());
    }
    boolean chunked =
        !response.headers().contains(HttpHeaders.CONTENT_LENGTH)
            && bodyAllowed(status)
            && in.version() != HttpVersion.HTTP_1_0;
    Headers.copyResponse(response.headers(), out.headers(), chunked);
    if (chunked && !out.isChunked()) {
      out.setChunked(true);
    }
    // the head goes out now, not with the first body chunk: SSE servers send it before the
    // first token, and a client's TTFT must not change
    out.writeHead();
    observer.response(status, response.headers());
    response.handler(this::forwardChunk);
    response.endHandler(v -> upstreamEnded());
    response.exceptionHandler(this::upstreamBroke);
  }

  private void forwardChunk(Buffer chunk) {
    long arrivalNs;
    long read;
    if (stamp != null) {
      arrivalNs = stamp.lastReadNs();
      read = stamp.reads();
    } else {
      arrivalNs = System.nanoTime();
      read = ++reads;
    }
    if (finished) {
      return;
    }
    out.write(chunk);
    metrics.chunkForwarded(System.nanoTime() - arrivalNs);
    observer.chunk(chunk, arrivalNs, read);
    if (out.writeQueueFull()) {
      upstreamResponse.pause();
      long pausedNs = System.nanoTime();
      out.drainHandler(
          v -> {
            observer.heldBack(pausedNs, System.nanoTime());
            upstreamResponse.resume();
          });
    }
  }

  private void upstreamEnded() {
    if (finished) {
      return;
    }
    finish();
    MultiMap trailers = upstreamResponse.trailers();
    if (out.isChunked() && trailers != null && !trailers.isEmpty()) {
      Headers.copyEndToEnd(trailers, out.trailers());
    }
    out.end();
    observer.end(System.nanoTime());
  }

  /** The upstream connection failed after the response head was forwarded. */
  private void upstreamBroke(Throwable cause) {
    if (finished) {
      return;
    }
    finish();
    boolean timeout = isTimeout(cause);
    metrics.gatewayError(timeout ? "idle_timeout" : "upstream_broke");
    // the client must see a broken response, not a complete one
    out.reset();
    observer.failed(timeout ? Failure.IDLE_TIMEOUT : Failure.UPSTREAM_BROKE, System.nanoTime());
  }

  /** No response head came: no connection, a timeout, or the connection failed first. */
  private void noResponse(Throwable cause, boolean connecting) {
    if (finished) {
      return;
    }
    finish();
    if (upstreamRequest != null) {
      upstreamRequest.reset();
    }
    if (connecting) {
      // the body was never forwarded: it is read (the measurement learns whether it asked for a
      // stream) and discarded, so that the client's connection stays usable
      in.handler(observer::requestBody);
      in.endHandler(v -> observer.requestEnd());
      in.resume();
    }
    Failure failure;
    GatewayError error;
    if (isTimeout(cause)) {
      failure = connecting ? Failure.CONNECT_TIMEOUT : Failure.RESPONSE_TIMEOUT;
      error =
          connecting
              ? new GatewayError(
                  504,
                  "upstream_connect_timeout",
                  "tpot proxy: no connection to the upstream "
                      + upstream.url()
                      + " within "
                      + connectTimeoutMs
                      + " ms: check that it is up and reachable from the proxy (or raise"
                      + " --connect-timeout)")
              : new GatewayError(
                  504,
                  "upstream_timeout",
                  "tpot proxy: the upstream "
                      + upstream.url()
                      + " sent no response for "
                      + idleTimeoutMs
                      + " ms: it is overloaded or stalled (or raise --idle-timeout)");
    } else {
      failure = connecting ? Failure.CONNECT : Failure.UPSTREAM_BROKE;
      error =
          connecting
              ? new GatewayError(
                  502,
                  "upstream_unreachable",
                  "tpot proxy: cannot connect to the upstream "
                      + upstream.url()
                      + " ("
                      + describe(cause)
                      + "): "
                      + tlsAdvice(cause, "check that it is up and that --upstream is right"))
              : new GatewayError(
                  502,
                  "upstream_closed",
                  "tpot proxy: the upstream "
                      + upstream.url()
                      + " closed the connection before it sent a response ("
                      + describe(cause)
                      + ")"
                      + (ClientTls.clientCertificateRefused(cause)
                          ? ": " + tlsAdvice(cause, null)
                          : ""));
    }
    metrics.gatewayError(error.code());
    if (out.headWritten() || out.closed()) {
      out.reset();
    } else {
      error.send(out, route);
    }
    observer.failed(failure, System.nanoTime());
  }

  private void clientGone() {
    if (finished) {
      return;
    }
    finish();
    metrics.clientDisconnect();
    if (upstreamRequest != null) {
      // HTTP/1.1: closes the upstream connection, so the upstream stops generating
      upstreamRequest.reset();
    }
    observer.failed(Failure.CLIENT_GONE, System.nanoTime());
  }

  private void finish() {
    finished = true;
    metrics.requestFinished();
    onDone.run();
  }

  private String originForm() {
    String uri = in.uri();
    if (uri.startsWith("/")) {
      return uri;
    }
    String path = in.path() == null || in.path().isEmpty() ? "/" : in.path();
    return in.query() == null ? path : path + "?" + in.query();
  }

  private boolean bodyAllowed(int status) {
    return in.method() != HttpMethod.HEAD
        && !(status >= 100 && status < 200)
        && status != 204
        && status != 304;
  }

  private static boolean isChunked(MultiMap headers) {
    for (String value : headers.getAll(HttpHeaders.TRANSFER_ENCODING)) {
      if (value.toLowerCase(Locale.ROOT).contains("chunked")) {
        return true;
      }
    }
    return false;
  }

  /** What to check when {@code cause} is about a certificate, else {@code otherwise}. */
  private String tlsAdvice(Throwable cause, String otherwise) {
    for (Throwable t = cause; t != null && t.getCause() != t; t = t.getCause()) {
      if (t instanceof CertificateException) {
        return upstreamTls.refusedServerAdvice(upstream.host(), "--upstream-ca or SSL_CERT_FILE");
      }
    }
    if (ClientTls.clientCertificateRefused(cause)) {
      return upstreamTls.refusedClientAdvice("--upstream-client-cert and --upstream-client-key");
    }
    return otherwise;
  }

  private static boolean isTimeout(Throwable cause) {
    return cause instanceof TimeoutException || cause instanceof ConnectTimeoutException;
  }

  private static String describe(Throwable cause) {
    String message = cause.getMessage();
    return cause.getClass().getSimpleName() + (message == null ? "" : ": " + message);
  }
}

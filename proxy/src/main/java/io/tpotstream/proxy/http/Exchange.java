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
  private final UpstreamPool pool;
  private final int maxConnections;
  private final Runnable onDone;
  private ExchangeObserver observer = ExchangeObserver.NONE;
  private HttpClientRequest upstreamRequest;
  private HttpClientResponse upstreamResponse;
  private ArrivalStamp stamp;
  private long reads;
  private boolean finished;
  private boolean queued;
  private boolean holdsConnection;
  private boolean bodyless;
  private boolean closeDelimited;
  private boolean requestForwarded;

  Exchange(
      HttpServerRequest in,
      HttpClient client,
      Upstream upstream,
      ClientTls upstreamTls,
      long connectTimeoutMs,
      long idleTimeoutMs,
      ProxyMetrics metrics,
      UpstreamPool pool,
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
    this.pool = pool;
    this.maxConnections = pool.maxConnections();
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
    Headers.copyRequest(in.headers(), headers, upstream.authority(), expectsContinue());
    options.setHeaders(headers);
    out.closeHandler(v -> clientGone());
    in.exceptionHandler(t -> clientGone());
    // the request start: the proxy asks its client to send (before any pool wait or connect)
    long startNs = System.nanoTime();
    observer = observers.begin(in, route, startNs);
    // every upstream connection of this loop busy: the request waits in the pool's queue
    queued = pool.full();
    if (queued) {
      metrics.queued(1);
    }
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
    leaveQueue();
    if (finished) {
      request.reset();
      return;
    }
    upstreamRequest = request;
    holdsConnection = true;
    pool.acquired();
    // the time of each read of the upstream connection, taken first thing in its pipeline
    stamp = ArrivalStamp.of(request.connection());
    if (isChunked(in.headers())) {
      request.setChunked(true);
    }
    // 1xx answers the client is waiting for go to it as they come
    request.earlyHintsHandler(hints -> out.writeEarlyHints(Headers.endToEnd(hints)));
    if (expectsContinue()) {
      // the client sends its body only after a 100 Continue: the upstream's, relayed
      request.continueHandler(v -> out.writeContinue());
      request.sendHead();
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
          requestForwarded = true;
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
    bodyless = !bodyAllowed(status);
    boolean length = response.headers().contains(HttpHeaders.CONTENT_LENGTH);
    boolean http10 = in.version() == HttpVersion.HTTP_1_0;
    // an HTTP/1.0 client knows no chunked encoding: a body of unknown length ends with the
    // connection, as an HTTP/1.0 server sends it
    closeDelimited = !bodyless && !length && http10;
    boolean chunked = !bodyless && !length && !http10;
    Headers.copyResponse(response.headers(), out.headers(), chunked);
    if (chunked && !out.isChunked()) {
      out.setChunked(true);
    }
    if (closeDelimited) {
      // no Connection: keep-alive, whatever the client asked: the end of the body is the close;
      // Vert.x writes the head of an HTTP/1.0 response without a length with its first chunk
      out.headersEndHandler(v -> out.headers().remove(HttpHeaders.CONNECTION));
      out.write(Buffer.buffer());
    } else if (bodyless) {
      // goes out whole when the upstream ends it (Vert.x writes no head alone without a length
      // or chunked encoding)
      keepBodylessFraming(length);
    } else {
      // the head goes out now, not with the first body chunk: SSE servers send it before the
      // first token, and a client's TTFT must not change
      out.writeHead();
    }
    observer.response(status, response.headers());
    response.handler(this::forwardChunk);
    response.endHandler(v -> upstreamEnded());
    response.exceptionHandler(this::upstreamBroke);
  }

  /**
   * A response without a body keeps the upstream's framing headers: Vert.x adds {@code
   * Content-Length: 0} to a 304 (and to a 204, which Netty then strips), undone just before the
   * head goes. (A HEAD response's {@code Transfer-Encoding: chunked} cannot be kept: Netty's
   * decoder drops it from the upstream's response.)
   */
  private void keepBodylessFraming(boolean upstreamLength) {
    if (!upstreamLength) {
      out.headersEndHandler(v -> out.headers().remove(HttpHeaders.CONTENT_LENGTH));
    }
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
    if (finished || bodyless) {
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
    if (!requestForwarded) {
      // answered before the client's body was all sent (a refusal of an expected body): the
      // upstream connection, with a request half sent, is not reused
      upstreamRequest.reset();
    }
    MultiMap trailers = upstreamResponse.trailers();
    if (out.isChunked() && trailers != null && !trailers.isEmpty()) {
      Headers.copyEndToEnd(trailers, out.trailers());
    }
    if (closeDelimited) {
      out.end().onComplete(v -> in.connection().close());
    } else {
      out.end();
    }
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
    boolean waitedInQueue = queued || pool.full();
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
    if (connecting && cause instanceof TimeoutException && waitedInQueue) {
      // the wait for one of this loop's pooled connections, not the upstream, took too long
      failure = Failure.QUEUE_TIMEOUT;
      metrics.queueTimeout();
      error =
          new GatewayError(
              503,
              "proxy_queue_timeout",
              "tpot proxy: all "
                  + maxConnections
                  + " upstream connections of its event loop were busy for "
                  + connectTimeoutMs
                  + " ms, so the request waited in the proxy's own queue and was not sent: raise"
                  + " --max-connections (or --event-loops, or --connect-timeout to wait longer);"
                  + " the upstream "
                  + upstream.url()
                  + " itself was not asked");
    } else if (isTimeout(cause)) {
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

  private void leaveQueue() {
    if (queued) {
      queued = false;
      metrics.queued(-1);
    }
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
    leaveQueue();
    if (holdsConnection) {
      holdsConnection = false;
      pool.released();
    }
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

  /** An HTTP/1.1 request that waits for a 100 Continue before sending its body. */
  private boolean expectsContinue() {
    return in.version() == HttpVersion.HTTP_1_1
        && "100-continue".equalsIgnoreCase(in.getHeader(HttpHeaders.EXPECT));
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

package io.tpotstream.producer.engine;

import io.tpotstream.common.Waits;
import io.tpotstream.producer.http.ClientTls;
import io.tpotstream.producer.http.Failures;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import javax.net.ssl.SSLException;

/**
 * GETs a metrics endpoint and parses its body as it arrives ({@link ExpositionParser}, bounded): on
 * a Vert.x instance of its own with one event loop, never on a loop that measures. Each fetch ends
 * within its timeout, as an {@link Exposition} or a {@link Failed} naming what went wrong in one
 * line (refused, TLS, an HTTP status, the timeout, a body past its bound).
 */
final class MetricsFetch implements AutoCloseable {
  /** What a Prometheus server asks for: the text format 0.0.4, not OpenMetrics or protobuf. */
  static final String ACCEPT = "text/plain;version=0.0.4;q=1,*/*;q=0.1";

  /**
   * Why a fetch failed.
   *
   * @param kind the kind of failure, for warning once per kind: {@code connection}, {@code tls},
   *     {@code http_<status>}, {@code timeout}, {@code too_large}, {@code unreadable}
   * @param message one line, not yet masked
   */
  record Failed(String kind, String message) {}

  /** A fetch that failed, as the future's exception. */
  static final class FetchException extends RuntimeException {
    final transient Failed failed;

    FetchException(Failed failed) {
      super(failed.message(), null, false, false);
      this.failed = failed;
    }
  }

  private final Vertx vertx;
  private final Context context;
  private final HttpClientAgent client;
  private final ClientTls tls;
  private final Duration timeout;
  private final ExpositionParser.Limits limits;

  /**
   * A fetcher whose fetches use {@code tls} (the producer's or the proxy's upstream options) and
   * end within {@code timeout}, their bodies held to {@code limits}.
   */
  MetricsFetch(ClientTls tls, Duration timeout, ExpositionParser.Limits limits) {
    this.tls = tls;
    this.timeout = timeout;
    this.limits = limits;
    this.vertx =
        Vertx.vertx(
            new VertxOptions()
                .setEventLoopPoolSize(1)
                .setWorkerPoolSize(1)
                .setInternalBlockingPoolSize(1));
    this.context = vertx.getOrCreateContext();
    HttpClientOptions options =
        tls.applyTo(
            new HttpClientOptions()
                .setName("tpot-engine-metrics")
                .setProtocolVersion(HttpVersion.HTTP_1_1)
                .setKeepAlive(true)
                .setDecompressionSupported(false)
                .setVerifyHost(true)
                .setConnectTimeout((int) timeout.toMillis()));
    this.client =
        vertx
            .httpClientBuilder()
            .with(options)
            // a connection per endpoint, however many share a host and port
            .with(new PoolOptions().setHttp1MaxSize(EngineSettings.MAX_TARGETS))
            .withConnectHandler(c -> c.exceptionHandler(e -> {}))
            .build();
  }

  /**
   * GETs {@code url} with {@code headers}, keeping the samples of the families {@code wanted}
   * names. The future completes within the timeout (on this fetcher's event loop), exceptionally
   * with a {@link FetchException}.
   */
  CompletableFuture<Exposition> get(
      URI url, Map<String, String> headers, Predicate<String> wanted) {
    CompletableFuture<Exposition> result = new CompletableFuture<>();
    context.runOnContext(v -> start(url, headers, wanted, result));
    return result;
  }

  private void start(
      URI url,
      Map<String, String> headers,
      Predicate<String> wanted,
      CompletableFuture<Exposition> result) {
    HttpClientRequest[] request = {null};
    long timer =
        vertx.setTimer(
            timeout.toMillis(),
            t -> {
              if (fail(result, "timeout", "no answer within " + seconds(timeout))
                  && request[0] != null) {
                request[0].reset();
              }
            });
    result.whenComplete((x, e) -> vertx.cancelTimer(timer));
    client
        .request(
            new RequestOptions()
                .setMethod(HttpMethod.GET)
                .setAbsoluteURI(url.toString())
                .setIdleTimeout(timeout.toMillis()))
        .onFailure(e -> fail(result, url, e))
        .onSuccess(
            req -> {
              request[0] = req;
              req.exceptionHandler(e -> fail(result, url, e)); // a reset after a failure: no-op
              headers.forEach(req::putHeader);
              req.putHeader("Accept", ACCEPT);
              req.send()
                  .onFailure(e -> fail(result, url, e))
                  .onSuccess(response -> read(url, req, response, wanted, result));
            });
  }

  private void read(
      URI url,
      HttpClientRequest req,
      HttpClientResponse response,
      Predicate<String> wanted,
      CompletableFuture<Exposition> result) {
    response.exceptionHandler(e -> fail(result, url, e)); // first: a reset below reports here
    if (response.statusCode() != 200) {
      int status = response.statusCode();
      String advice =
          status == 401 || status == 403
              ? ": the endpoint wants credentials (headers go only to base_url's host; put them in"
                  + " the URL or serve /metrics without them)"
              : status == 404 ? ": check the path (vLLM, SGLang and TGI serve /metrics)" : "";
      fail(result, "http_" + status, "HTTP " + status + advice);
      req.reset();
      return;
    }
    String length = response.getHeader("Content-Length");
    if (length != null && length.trim().matches("[0-9]{1,18}")) {
      if (Long.parseLong(length.trim()) > limits.maxBodyBytes()) {
        tooLarge(result, req);
        return;
      }
    }
    ExpositionParser parser = new ExpositionParser(wanted, limits);
    response.handler(
        buffer -> {
          if (result.isDone()) {
            return;
          }
          try {
            byte[] bytes = buffer.getBytes();
            parser.accept(bytes, 0, bytes.length);
          } catch (ExpositionException e) {
            tooLarge(result, req);
          }
        });
    response.endHandler(
        v -> {
          if (!result.isDone()) {
            result.complete(parser.finish());
          }
        });
  }

  private void tooLarge(CompletableFuture<Exposition> result, HttpClientRequest req) {
    fail(result, "too_large", "body larger than " + ExpositionParser.size(limits.maxBodyBytes()));
    req.reset();
  }

  private void fail(CompletableFuture<Exposition> result, URI url, Throwable cause) {
    String hostPort = Failures.hostPort(url);
    if (Failures.isTimeout(cause)) {
      fail(result, "timeout", "no answer within " + seconds(timeout));
    } else if (Failures.find(cause, CertificateException.class) != null
        || ClientTls.clientCertificateRefused(cause)
        || Failures.find(cause, SSLException.class) != null) {
      fail(
          result,
          "tls",
          "TLS handshake with "
              + hostPort
              + " failed ("
              + Failures.describe(cause)
              + "); "
              + (ClientTls.clientCertificateRefused(cause)
                  ? tls.refusedClientAdvice("the client certificate options")
                  : tls.refusedServerAdvice(url.getHost(), "the CA options")));
    } else {
      fail(
          result,
          "connection",
          "cannot connect to " + hostPort + " (" + Failures.describe(cause) + ")");
    }
  }

  /** Fails {@code result} unless it is done; true when this call failed it. */
  private static boolean fail(CompletableFuture<Exposition> result, String kind, String message) {
    return result.completeExceptionally(new FetchException(new Failed(kind, message)));
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }

  @Override
  public void close() {
    Waits.quietly(vertx.close().toCompletionStage(), 10);
  }
}

package io.tpotstream.proxy.http;

import io.tpotstream.producer.http.HttpClients;
import io.tpotstream.producer.publish.LoopLagMeter;
import io.tpotstream.proxy.ProxyConfig;
import io.tpotstream.proxy.measure.Route;
import io.tpotstream.proxy.metrics.ProxyMetrics;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.internal.ContextInternal;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * One HTTP/1.1 server and one upstream client on one event loop; instances on the same port share
 * the accepted connections (Vert.x balances them across the loops). Each instance's client opens
 * its upstream connections from its own loop and only that loop uses them, so a chunk is read,
 * written and measured on one thread, never handed to another loop.
 */
public final class ProxyVerticle extends VerticleBase {
  private static final int MAX_HEADER_BYTES = 64 * 1024;

  private final ProxyConfig config;
  private final ProxyMetrics metrics;
  private final ObserverFactory observers;
  private final int listenPort;
  private final Map<Exchange, Boolean> inFlight = new IdentityHashMap<>();
  private HttpServer server;
  private HttpClient client;
  private UpstreamPool upstreamPool;
  private LoopLagMeter loopLag;

  /**
   * @param listenPort the port, or -1 for the port Vert.x picked for the first instance (all
   *     instances of one deployment share it)
   */
  public ProxyVerticle(
      ProxyConfig config, ProxyMetrics metrics, ObserverFactory observers, int listenPort) {
    this.config = config;
    this.metrics = metrics;
    this.observers = observers;
    this.listenPort = listenPort;
  }

  @Override
  public Future<?> start() {
    // the producer's streaming client (bytes unchanged: a compressed response stays compressed
    // for the client), with SNI and the largest headers an upstream may send
    HttpClientOptions clientOptions =
        HttpClients.streamingOptions(config.connectTimeout())
            .setForceSni(true)
            .setMaxHeaderSize(MAX_HEADER_BYTES)
            .setMaxInitialLineLength(MAX_HEADER_BYTES)
            .setName("tpot-proxy");
    PoolOptions pool =
        new PoolOptions().setHttp1MaxSize(config.maxConnectionsPerLoop()).setMaxWaitQueueSize(-1);
    config.upstreamTls().applyTo(clientOptions);
    client = vertx.createHttpClient(clientOptions, pool);
    upstreamPool = new UpstreamPool(config.maxConnectionsPerLoop());
    HttpServerOptions serverOptions =
        new HttpServerOptions()
            .setHost(config.host())
            .setPort(listenPort)
            .setCompressionSupported(false)
            .setDecompressionSupported(false)
            .setTcpNoDelay(true)
            // an h2c upgrade offer is declined: the request is answered over HTTP/1.1
            .setHttp2ClearTextEnabled(false)
            .setMaxHeaderSize(MAX_HEADER_BYTES)
            .setMaxInitialLineLength(MAX_HEADER_BYTES)
            .setPerMessageWebSocketCompressionSupported(false)
            .setPerFrameWebSocketCompressionSupported(false)
            // the upstream's own 100 Continue (or its refusal) is relayed
            .setHandle100ContinueAutomatically(false);
    if (config.listenTls().hasCertificate()) {
      config.listenTls().applyTo(serverOptions).setSsl(true);
      serverOptions.setClientAuth(config.clientAuth());
    }
    long headerTimeoutNs = config.clientHeaderTimeout().toNanos();
    long idleTimeoutNs = config.clientIdleTimeout().toNanos();
    server =
        vertx
            .createHttpServer(serverOptions)
            .connectionHandler(
                c -> ClientDeadlines.install(c, headerTimeoutNs, idleTimeoutNs, metrics))
            .requestHandler(this::handle);
    loopLag =
        LoopLagMeter.start(((ContextInternal) context).nettyEventLoop(), LoopLagMeter.TICK_NS);
    return server.listen();
  }

  /** How late this instance's event loop runs (for the heartbeats' {@code loopLagMaxUs}). */
  public LoopLagMeter loopLag() {
    return loopLag;
  }

  @Override
  public Future<?> stop() {
    loopLag.stop();
    return client.close();
  }

  /** The port this instance listens on. */
  public int actualPort() {
    return server.actualPort();
  }

  /** Stops accepting connections (requests in flight go on). */
  public Future<Void> stopListening() {
    return server.close();
  }

  /** Requests in flight on this loop (read on any thread). */
  public int inFlight() {
    synchronized (inFlight) {
      return inFlight.size();
    }
  }

  /** Aborts every exchange still in flight, on this instance's loop. */
  public Future<Void> abortAll() {
    Promise<Void> done = Promise.promise();
    context.runOnContext(
        v -> {
          List<Exchange> all;
          synchronized (inFlight) {
            all = new ArrayList<>(inFlight.keySet());
          }
          all.forEach(Exchange::abort);
          done.complete();
        });
    return done.future();
  }

  private void handle(HttpServerRequest request) {
    ClientDeadlines deadlines = ClientDeadlines.of(request.connection());
    if (deadlines != null) {
      deadlines.requestBegun();
      request.response().endHandler(v -> deadlines.responseEnded());
    }
    if (request.method() == HttpMethod.CONNECT || upgradesToOtherThanH2c(request)) {
      new GatewayError(
              501,
              "not_proxied",
              "tpot proxy forwards HTTP requests only: "
                  + (request.method() == HttpMethod.CONNECT
                      ? "CONNECT (a forward-proxy tunnel)"
                      : "protocol upgrades (WebSocket)")
                  + " are not proxied; send them to the upstream directly")
          .send(request.response(), Route.OTHER);
      return;
    }
    Exchange[] self = new Exchange[1];
    Exchange exchange =
        new Exchange(
            request,
            client,
            config.upstream(),
            config.upstreamTls(),
            config.connectTimeout().toMillis(),
            config.idleTimeout().toMillis(),
            metrics,
            upstreamPool,
            () -> {
              synchronized (inFlight) {
                inFlight.remove(self[0]);
              }
            });
    self[0] = exchange;
    synchronized (inFlight) {
      inFlight.put(exchange, Boolean.TRUE);
    }
    exchange.start(observers);
  }

  /**
   * A protocol upgrade other than h2c (WebSocket): not proxied. An h2c offer ({@code curl --http2}
   * on http://) may be declined by the server (RFC 9113, section 3.2), and is: the request is
   * forwarded without it and answered over HTTP/1.1.
   */
  private static boolean upgradesToOtherThanH2c(HttpServerRequest request) {
    for (String value : request.headers().getAll(HttpHeaders.UPGRADE)) {
      for (String token : value.split(",")) {
        if (!token.isBlank() && !token.trim().equalsIgnoreCase("h2c")) {
          return true;
        }
      }
    }
    return false;
  }
}

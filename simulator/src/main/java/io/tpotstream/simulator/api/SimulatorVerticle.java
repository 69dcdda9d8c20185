package io.tpotstream.simulator.api;

import io.tpotstream.simulator.pacing.LoopTimer;
import io.tpotstream.simulator.pacing.LoopTimers;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;

/**
 * One HTTP server on one event loop; several instances on the same port share the connections
 * (Vert.x balances them across the instances' loops).
 */
public final class SimulatorVerticle extends VerticleBase {
  private final Routes routes;
  private final LoopTimers timers;
  private final String host;
  private final int port;
  private HttpServer server;

  public SimulatorVerticle(Routes routes, LoopTimers timers, String host, int port) {
    this.routes = routes;
    this.timers = timers;
    this.host = host;
    this.port = port;
  }

  @Override
  public Future<?> start() {
    LoopTimer timer = timers.current();
    HttpServerOptions options =
        new HttpServerOptions()
            .setHost(host)
            .setPort(port)
            .setCompressionSupported(false)
            .setTcpNoDelay(true)
            // HTTP/1.1 only: an injected cut then closes exactly one stream
            .setHttp2ClearTextEnabled(false)
            // no WebSocket: spares a pipeline handler on every write
            .setPerMessageWebSocketCompressionSupported(false)
            .setPerFrameWebSocketCompressionSupported(false)
            .setHandle100ContinueAutomatically(true);
    server = vertx.createHttpServer(options).requestHandler(r -> routes.handle(r, timer));
    return server.listen();
  }

  /** The port this instance listens on (the chosen one when asked for port 0). */
  public int actualPort() {
    return server.actualPort();
  }
}

package io.tpotstream.simulator.api;

import io.tpotstream.simulator.pacing.LoopTimer;
import io.tpotstream.simulator.pacing.LoopTimers;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP server on one event loop; several instances on the same port share the connections
 * (Vert.x balances them across the instances' loops).
 */
public final class SimulatorVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(SimulatorVerticle.class);

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
    server =
        vertx
            .createHttpServer(options)
            .connectionHandler(SimulatorVerticle::clientMayLeave)
            .requestHandler(r -> routes.handle(r, timer));
    return server.listen();
  }

  /**
   * A client that goes away mid-stream (a reset, a broken pipe: a run's warm-up ending, a client
   * killed) is no error of the simulator's: its stream stops ({@link StreamSession}), and the
   * connection's exception is a DEBUG line here instead of Vert.x's unhandled ERROR
   * ("recvAddress(..) failed with error(-104): Connection reset by peer").
   */
  private static void clientMayLeave(HttpConnection connection) {
    connection.exceptionHandler(
        e -> LOG.debug("connection from {} ended: {}", connection.remoteAddress(), e.getMessage()));
  }

  /** The port this instance listens on (the chosen one when asked for port 0). */
  public int actualPort() {
    return server.actualPort();
  }
}

package io.tpotstream.producer.http;

import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.config.ProxySettings;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.net.ProxyOptions;
import io.vertx.core.net.ProxyType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The producer's HTTP clients: HTTP/1.1 keep-alive, no decompression, TLS with host verification
 * against the JVM's trust store or the config's CA bundle ({@link ClientTls}), and the proxy from
 * {@code HTTPS_PROXY}/{@code HTTP_PROXY}/ {@code NO_PROXY} (Vert.x does not read them itself). The
 * load runner makes one client per event loop and uses it only from that loop: a pool creates each
 * connection on the loop of the request that asked for it, so a client used by one loop keeps every
 * connection, and every chunk, on the loop that owns the request (no hop to another loop before the
 * chunk is timestamped).
 */
public final class HttpClients {
  private static final Logger LOG = LoggerFactory.getLogger(HttpClients.class);
  static final String USER_AGENT = "tpot-stream/0.1";

  private HttpClients() {}

  /**
   * Options for a client that streams responses as they come: HTTP/1.1 keep-alive without
   * pipelining, the bytes as sent (no decompression), no Nagle delay, host verification, and {@code
   * connectTimeout} (capped at {@code Integer.MAX_VALUE} ms).
   */
  public static HttpClientOptions streamingOptions(Duration connectTimeout) {
    return new HttpClientOptions()
        .setProtocolVersion(HttpVersion.HTTP_1_1)
        .setKeepAlive(true)
        .setPipelining(false)
        .setDecompressionSupported(false)
        .setTcpNoDelay(true)
        .setVerifyHost(true)
        .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()));
  }

  /** A client for {@code config}'s target, with a pool of up to {@code maxConnections}. */
  public static HttpClientAgent create(Vertx vertx, ProducerConfig config, int maxConnections) {
    HttpClientOptions options =
        config
            .tls()
            .applyTo(streamingOptions(config.timeouts().connect()).setName("tpot-producer"));
    ProxySettings proxy = config.proxy();
    if (proxy.enabled()) {
      ProxyOptions proxyOptions =
          new ProxyOptions().setType(ProxyType.HTTP).setHost(proxy.host()).setPort(proxy.port());
      if (proxy.username() != null) {
        proxyOptions.setUsername(proxy.username());
      }
      if (proxy.password() != null) {
        proxyOptions.setPassword(proxy.password());
      }
      List<String> direct = new ArrayList<>(proxy.nonProxyHosts());
      if (config.warmup().local()) {
        direct.add("127.0.0.1"); // the local warm-up's simulator is in this process
      }
      options.setProxyOptions(proxyOptions).setNonProxyHosts(direct);
    }
    // eventLoopSize 0: a connection lives on the event loop of the request that created it
    PoolOptions pool =
        new PoolOptions()
            .setHttp1MaxSize(maxConnections)
            .setMaxWaitQueueSize(-1)
            .setEventLoopSize(0);
    return vertx
        .httpClientBuilder()
        .with(options)
        .with(pool)
        .withConnectHandler(HttpClients::failuresAreTheRequests)
        .build();
  }

  /**
   * A connection that breaks (a reset by the server or a proxy) fails the request on it, which
   * {@link Failures} names and counts; the connection's own exception is a DEBUG line, not Vert.x's
   * unhandled ERROR.
   */
  private static void failuresAreTheRequests(HttpConnection connection) {
    connection.exceptionHandler(
        e -> LOG.debug("connection to {} broke: {}", connection.remoteAddress(), e.getMessage()));
  }

  /** A client for {@code config}'s target, with a pool sized to the concurrency. */
  public static HttpClientAgent create(Vertx vertx, ProducerConfig config) {
    return create(vertx, config, config.poolSize());
  }
}

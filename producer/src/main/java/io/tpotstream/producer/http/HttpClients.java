package io.tpotstream.producer.http;

import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.config.ProxySettings;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.net.ProxyOptions;
import io.vertx.core.net.ProxyType;

/**
 * The producer's HTTP client: HTTP/1.1 keep-alive with a pool sized to the concurrency, no
 * decompression, TLS with the JVM's default trust store and host verification, and the proxy from
 * {@code HTTPS_PROXY}/{@code HTTP_PROXY}/{@code NO_PROXY} (Vert.x does not read them itself).
 */
public final class HttpClients {
  static final String USER_AGENT = "tpot-stream/0.1";

  private HttpClients() {}

  /** A client for {@code config}'s target. */
  public static HttpClientAgent create(Vertx vertx, ProducerConfig config) {
    HttpClientOptions options =
        new HttpClientOptions()
            .setProtocolVersion(HttpVersion.HTTP_1_1)
            .setKeepAlive(true)
            .setPipelining(false)
            .setDecompressionSupported(false)
            .setTcpNoDelay(true)
            .setVerifyHost(true)
            .setConnectTimeout(
                (int) Math.min(Integer.MAX_VALUE, config.timeouts().connect().toMillis()))
            .setName("tpot-producer");
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
      options.setProxyOptions(proxyOptions).setNonProxyHosts(proxy.nonProxyHosts());
    }
    PoolOptions pool = new PoolOptions().setHttp1MaxSize(config.poolSize()).setMaxWaitQueueSize(-1);
    return vertx.createHttpClient(options, pool);
  }
}

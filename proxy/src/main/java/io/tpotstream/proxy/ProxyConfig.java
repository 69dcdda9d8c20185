package io.tpotstream.proxy;

import io.tpotstream.common.Records;
import io.tpotstream.producer.engine.EngineSettings;
import io.tpotstream.producer.http.ClientTls;
import io.tpotstream.producer.http.TlsFiles;
import io.tpotstream.proxy.http.Upstream;
import io.tpotstream.proxy.prefix.PrefixHashKey;
import io.vertx.core.http.ClientAuth;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * How to run a {@link TpotProxy}.
 *
 * @param host the address to listen on
 * @param port the port; 0 picks a free one
 * @param upstream where requests go (scheme, host, port and an optional path prefix)
 * @param labelHeaders request header name (lower case) to label name: a request's value of that
 *     header becomes the label on its events; no other header is ever read into an event
 * @param labels labels put on every event (e.g. {@code target=gateway-a})
 * @param sample the fraction of streaming requests measured, 0 to 1
 * @param runId the {@code runId} of every event
 * @param requestIdHeader a request header (lower case) whose value, when present, is the request id
 *     of the events (so they can be matched with the client's or the server's records), or null for
 *     the proxy's own ids; the values must be unique
 * @param connectTimeout how long to wait for a connection to the upstream (then 504)
 * @param idleTimeout how long the upstream may stay silent, before or during a response (then 504,
 *     or the client's connection is closed when the response had begun)
 * @param clientHeaderTimeout how long a client may take to send a request head (from the accept, or
 *     from the first byte of the next request on a kept-alive connection); then its connection is
 *     closed; zero for no limit
 * @param clientIdleTimeout how long a kept-alive client connection may wait for its next request;
 *     then it is closed; zero for no limit
 * @param eventLoops event-loop threads (each owns its connections, both sides)
 * @param maxConnectionsPerLoop upstream connections one event loop may open
 * @param metricsPort the port of {@code /metrics}; 0 picks a free one, -1 serves none
 * @param drainTimeout on stop, how long requests in flight may take to finish
 * @param prime before listening, how long the forwarding and measuring path runs against a {@link
 *     Primer}'s server inside the process (a budget: the port opens after it); zero: not primed
 * @param listenTls the certificate and key (PEM) to serve HTTPS with, or {@link TlsFiles#NONE} for
 *     plain HTTP (a CA file here is the one that signs clients' certificates: mutual TLS)
 * @param clientAuth whether HTTPS clients are asked for a certificate signed by {@code listenTls}'s
 *     CA: not at all (NONE, the CA file then unused), optionally (REQUEST) or as a condition
 *     (REQUIRED)
 * @param upstreamTls how an https upstream's certificate is checked (the JVM's trust store, a CA
 *     bundle, or not at all), and a client certificate for mutual TLS
 * @param prefixHashKey the key of the prompts' block hashes on start events ({@code
 *     --capture-prefix-hashes}), or null: not captured
 * @param engineMetrics the inference engines' metrics endpoints to scrape beside the traffic
 *     ({@code --engine-metrics}; {@link EngineSettings#NONE}: none)
 */
public record ProxyConfig(
    String host,
    int port,
    Upstream upstream,
    Map<String, String> labelHeaders,
    SortedMap<String, String> labels,
    double sample,
    String runId,
    String requestIdHeader,
    Duration connectTimeout,
    Duration idleTimeout,
    Duration clientHeaderTimeout,
    Duration clientIdleTimeout,
    int eventLoops,
    int maxConnectionsPerLoop,
    int metricsPort,
    Duration drainTimeout,
    Duration prime,
    TlsFiles listenTls,
    ClientAuth clientAuth,
    ClientTls upstreamTls,
    PrefixHashKey prefixHashKey,
    EngineSettings engineMetrics) {

  public static final int DEFAULT_METRICS_PORT = 9405;

  /**
   * A request head normally arrives in one packet; 30 s leaves room for a congested or briefly
   * suspended client and frees the socket of one that sends its head a byte at a time.
   */
  public static final Duration DEFAULT_CLIENT_HEADER_TIMEOUT = Duration.ofSeconds(30);

  /**
   * Longer than the keep-alive expiry of common clients' pools (httpx 5 s, Node 4 s, Go 90 s), so
   * that the proxy seldom closes a connection a client is about to reuse.
   */
  public static final Duration DEFAULT_CLIENT_IDLE_TIMEOUT = Duration.ofSeconds(120);

  /**
   * Headers that carry credentials: never read into an event, as a label or as a request id (events
   * are published to a shared topic).
   */
  public static final Set<String> CREDENTIAL_HEADERS =
      Set.of(
          "authorization",
          "proxy-authorization",
          "x-api-key",
          "api-key",
          "x-goog-api-key",
          "cookie",
          "set-cookie");

  public ProxyConfig {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("--listen: a port from 0 to 65535, got " + port);
    }
    if (metricsPort < -1 || metricsPort > 65535) {
      throw new IllegalArgumentException(
          "--metrics-port: a port from 0 to 65535, or -1 for none, got " + metricsPort);
    }
    if (!(sample >= 0 && sample <= 1)) {
      throw new IllegalArgumentException(
          "--sample: a fraction from 0 to 1 (0.1 measures one request in ten), got " + sample);
    }
    if (listenTls == null) {
      listenTls = TlsFiles.NONE;
    }
    if (upstreamTls == null) {
      upstreamTls = ClientTls.DEFAULT;
    }
    if (listenTls.caFile() != null && !listenTls.hasCertificate()) {
      throw new IllegalArgumentException(
          "--tls-client-ca asks clients for certificates: serve HTTPS too (--tls-cert and"
              + " --tls-key)");
    }
    if (clientAuth == null) {
      clientAuth = ClientAuth.NONE;
    }
    if (engineMetrics == null) {
      engineMetrics = EngineSettings.NONE;
    }
    if (clientAuth != ClientAuth.NONE && listenTls.caFile() == null) {
      throw new IllegalArgumentException(
          "--client-auth "
              + clientAuth.name().toLowerCase(Locale.ROOT)
              + " checks client certificates against a CA: give it with --tls-client-ca (and"
              + " serve HTTPS with --tls-cert and --tls-key)");
    }
    for (Duration d : new Duration[] {clientHeaderTimeout, clientIdleTimeout}) {
      if (d == null || d.isNegative()) {
        throw new IllegalArgumentException(
            "--client-header-timeout and --client-idle-timeout: a duration, 0 for no limit, got "
                + d);
      }
    }
    if (eventLoops < 1) {
      throw new IllegalArgumentException("--event-loops must be at least 1, got " + eventLoops);
    }
    if (maxConnectionsPerLoop < 1) {
      throw new IllegalArgumentException(
          "--max-connections must be at least 1, got " + maxConnectionsPerLoop);
    }
    TreeMap<String, String> headers = new TreeMap<>();
    labelHeaders.forEach((h, l) -> headers.put(h.toLowerCase(Locale.ROOT), l));
    for (String header : headers.keySet()) {
      refuseCredentials("--label-header", header);
    }
    if (requestIdHeader != null) {
      refuseCredentials("--request-id-header", requestIdHeader.toLowerCase(Locale.ROOT));
    }
    labelHeaders = Map.copyOf(headers);
    labels = new TreeMap<>(labels);
    requestIdHeader =
        requestIdHeader == null || requestIdHeader.isBlank()
            ? null
            : requestIdHeader.toLowerCase(Locale.ROOT);
  }

  /**
   * {@code --client-auth}: {@code none}, {@code request} or {@code required}; when not given,
   * required with a client CA ({@code --tls-client-ca}), else none.
   *
   * @throws IllegalArgumentException for any other value, saying what is expected
   */
  public static ClientAuth clientAuth(String flag, boolean clientCa) {
    if (flag == null) {
      return clientCa ? ClientAuth.REQUIRED : ClientAuth.NONE;
    }
    return switch (flag.trim().toLowerCase(Locale.ROOT)) {
      case "none" -> ClientAuth.NONE;
      case "request" -> ClientAuth.REQUEST;
      case "required" -> ClientAuth.REQUIRED;
      default ->
          throw new IllegalArgumentException(
              "--client-auth '" + flag + "': expected none, request or required");
    };
  }

  private static void refuseCredentials(String option, String header) {
    if (CREDENTIAL_HEADERS.contains(header)) {
      throw new IllegalArgumentException(
          option
              + " "
              + header
              + ": that header carries credentials, which would be published with every event;"
              + " choose a header that names the caller without its secret (e.g. X-App)");
    }
  }

  /**
   * Listens on 127.0.0.1:{@code port}, measures every streaming request, connect timeout 10 s, idle
   * timeout 10 min, client header timeout 30 s and idle timeout 120 s, no client certificates, one
   * event loop per core, metrics on {@value #DEFAULT_METRICS_PORT}.
   */
  public static ProxyConfig of(int port, Upstream upstream) {
    return new ProxyConfig(
        "127.0.0.1",
        port,
        upstream,
        Map.of(),
        new TreeMap<>(),
        1.0,
        "proxy",
        null,
        Duration.ofSeconds(10),
        Duration.ofMinutes(10),
        DEFAULT_CLIENT_HEADER_TIMEOUT,
        DEFAULT_CLIENT_IDLE_TIMEOUT,
        Runtime.getRuntime().availableProcessors(),
        1000,
        DEFAULT_METRICS_PORT,
        Duration.ofSeconds(30),
        Duration.ZERO,
        TlsFiles.NONE,
        ClientAuth.NONE,
        ClientTls.DEFAULT,
        null,
        EngineSettings.NONE);
  }

  public ProxyConfig withHost(String newHost) {
    return Records.with(this, "host", newHost);
  }

  public ProxyConfig withPort(int newPort) {
    return Records.with(this, "port", newPort);
  }

  public ProxyConfig withUpstream(Upstream newUpstream) {
    return Records.with(this, "upstream", newUpstream);
  }

  /** Serves HTTPS with {@code files}' certificate and key. */
  public ProxyConfig withListenTls(TlsFiles files) {
    return Records.with(this, "listenTls", files);
  }

  /**
   * Asks HTTPS clients for a certificate signed by the CA of {@link #listenTls()}: NONE, REQUEST
   * (optional) or REQUIRED.
   */
  public ProxyConfig withClientAuth(ClientAuth auth) {
    return Records.with(this, "clientAuth", auth);
  }

  /**
   * Closes a client connection whose request head takes longer than {@code header}, or that waits
   * for its next request longer than {@code idle} (zero: no limit).
   */
  public ProxyConfig withClientTimeouts(Duration header, Duration idle) {
    return Records.with(
        Records.with(this, "clientHeaderTimeout", header), "clientIdleTimeout", idle);
  }

  /** Checks the upstream's certificate (and shows a client certificate) as {@code tls} says. */
  public ProxyConfig withUpstreamTls(ClientTls tls) {
    return Records.with(this, "upstreamTls", tls);
  }

  /**
   * Puts the keyed hashes of each measured request's prompt blocks on its start event, under {@code
   * key} (null: none, the default).
   */
  public ProxyConfig withPrefixHashKey(PrefixHashKey key) {
    return Records.with(this, "prefixHashKey", key);
  }

  /** Primes for {@code budget} before listening ({@link Duration#ZERO}: not at all). */
  public ProxyConfig withPrime(Duration budget) {
    return Records.with(this, "prime", budget);
  }

  public ProxyConfig withLabelHeaders(Map<String, String> headerToLabel) {
    return Records.with(this, "labelHeaders", headerToLabel);
  }

  public ProxyConfig withLabels(Map<String, String> newLabels) {
    return Records.with(this, "labels", new TreeMap<>(newLabels));
  }

  public ProxyConfig withSample(double fraction) {
    return Records.with(this, "sample", fraction);
  }

  public ProxyConfig withRunId(String id) {
    return Records.with(this, "runId", id);
  }

  public ProxyConfig withRequestIdHeader(String header) {
    return Records.with(this, "requestIdHeader", header);
  }

  public ProxyConfig withTimeouts(Duration connect, Duration idle) {
    return Records.with(Records.with(this, "connectTimeout", connect), "idleTimeout", idle);
  }

  public ProxyConfig withEventLoops(int loops) {
    return Records.with(this, "eventLoops", loops);
  }

  public ProxyConfig withMaxConnectionsPerLoop(int max) {
    return Records.with(this, "maxConnectionsPerLoop", max);
  }

  public ProxyConfig withMetricsPort(int newPort) {
    return Records.with(this, "metricsPort", newPort);
  }

  /** Scrapes the engines of {@code settings} and publishes their view beside the traffic's. */
  public ProxyConfig withEngineMetrics(EngineSettings settings) {
    return Records.with(this, "engineMetrics", settings);
  }

  public ProxyConfig withDrainTimeout(Duration timeout) {
    return Records.with(this, "drainTimeout", timeout);
  }
}

package io.tpotstream.app.cli;

import io.tpotstream.producer.config.ConfigException;
import io.tpotstream.producer.http.ClientTls;
import io.tpotstream.producer.http.TlsFiles;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.producer.publish.Publisher;
import io.tpotstream.proxy.ProxyConfig;
import io.tpotstream.proxy.TpotProxy;
import io.tpotstream.proxy.http.Upstream;
import io.tpotstream.proxy.prefix.PrefixHashKey;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tpot proxy}: a transparent reverse proxy in front of an OpenAI- or Anthropic-compatible
 * API that publishes the token events of the streams passing through, until Ctrl-C or SIGTERM.
 */
@Command(
    name = "proxy",
    mixinStandardHelpOptions = true,
    header = "Measure real traffic on the way through: a transparent reverse proxy.",
    description = {
      "Forward every request to --upstream unchanged and stream every response back chunk by"
          + " chunk; publish the streaming chat completions and messages that pass as token events"
          + " (source: proxy) to Kafka, as `tpot produce` does for its own requests.",
      "Point an application at it by changing its base URL only, e.g."
          + " OPENAI_BASE_URL=http://127.0.0.1:8080/v1 with --upstream https://api.openai.com.",
      "No API key, prompt or completion text is published or logged. If Kafka is slow or down,"
          + " requests keep flowing and events are dropped (counted in /metrics and heartbeats)."
    })
final class ProxyCommand implements Callable<Integer> {
  private static final Pattern LABEL = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern HEADER = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

  @Spec CommandSpec spec;

  @Mixin KafkaOptions kafka;

  @Mixin EventsTopicOptions events;

  @Mixin TopicPartitionsOptions partitions;

  /** -q: no INFO lines (Tpot turns them off for every command that takes it). */
  @Mixin ProgressOptions progress;

  @Option(
      names = "--listen",
      required = true,
      paramLabel = "[HOST:]PORT",
      description =
          "Where the proxy listens, e.g. 8080 (on 127.0.0.1) or 0.0.0.0:8080 (every interface,"
              + " as in a container); port 0 picks a free one.")
  String listen;

  @Option(
      names = "--upstream",
      required = true,
      paramLabel = "URL",
      description =
          "The API to forward to: scheme, host, optional port and path prefix, e.g."
              + " https://api.openai.com or http://vllm:8000.")
  String upstream;

  @Option(
      names = "--label-header",
      paramLabel = "HEADER=LABEL",
      description =
          "Put the value of this request header on the request's events as this label"
              + " (repeatable), e.g. --label-header X-App=app. No other header is ever read.")
  Map<String, String> labelHeaders = new LinkedHashMap<>();

  @Mixin LabelOptions labelOptions;

  @Option(
      names = "--sample",
      defaultValue = "1",
      paramLabel = "FRACTION",
      description =
          "The fraction of streaming requests measured, 0 to 1 (default: ${DEFAULT-VALUE});"
              + " the others are forwarded only.")
  double sample;

  @Option(
      names = "--run-id",
      defaultValue = "proxy",
      description = "The runId of the events (default: ${DEFAULT-VALUE}).")
  String runId;

  @Option(
      names = "--request-id-header",
      paramLabel = "HEADER",
      description =
          "Take the events' request id from this request header when present (e.g. X-Request-Id,"
              + " to match them with the application's or the server's records); its values must"
              + " be unique. Default: the proxy's own ids.")
  String requestIdHeader;

  @Option(
      names = "--capture-prefix-hashes",
      description =
          "Put on each measured request's start event a keyed hash (HMAC-SHA256, 64 bits) of each"
              + " leading block of 2,048 bytes of its prompt (system and messages), each chained to"
              + " the one before, so that tpot trace can tell which requests shared a prefix."
              + " Never text. Off by default (docs/proxy.md, \"Prefix hashes\").")
  boolean capturePrefixHashes;

  @Option(
      names = "--prefix-hash-key-file",
      paramLabel = "FILE",
      description =
          "With --capture-prefix-hashes: the key of the hashes, the file's bytes (16 to 4,096,"
              + " e.g. head -c 32 /dev/urandom > FILE), so that several proxies and restarts give"
              + " the same prompt the same hashes. A secret; default: a random key per start.")
  Path prefixHashKeyFile;

  @Option(
      names = "--metrics-port",
      defaultValue = "" + ProxyConfig.DEFAULT_METRICS_PORT,
      description =
          "Port of the proxy's own /metrics (default: ${DEFAULT-VALUE}; 0 picks a free one, -1"
              + " serves none).")
  int metricsPort;

  @Option(
      names = "--connect-timeout",
      defaultValue = "10s",
      description =
          "How long to wait for a connection to the upstream before answering 504, or for a"
              + " free one in the proxy's own queue before answering 503 proxy_queue_timeout"
              + " (default: ${DEFAULT-VALUE}).")
  Duration connectTimeout;

  @Option(
      names = "--idle-timeout",
      defaultValue = "10m",
      description =
          "How long the upstream may stay silent before answering 504 (or, mid-response, cutting"
              + " the client's connection) (default: ${DEFAULT-VALUE}).")
  Duration idleTimeout;

  @Option(
      names = "--tls-cert",
      description =
          "Serve HTTPS with this certificate (PEM; with --tls-key), e.g. a certificate from your"
              + " private CA for the name clients call.")
  Path tlsCert;

  @Option(names = "--tls-key", description = "The private key of --tls-cert (PEM).")
  Path tlsKey;

  @Option(
      names = "--tls-client-ca",
      description =
          "The certificate authorities (PEM) that sign the certificates HTTPS clients show"
              + " (mutual TLS; with --client-auth).")
  Path tlsClientCa;

  @Option(
      names = "--client-auth",
      paramLabel = "none|request|required",
      description =
          "Whether HTTPS clients must show a certificate signed by --tls-client-ca: none,"
              + " request (checked when shown) or required (default: required with"
              + " --tls-client-ca, else none).")
  String clientAuth;

  @Option(
      names = "--client-header-timeout",
      defaultValue = "30s",
      description =
          "Close a client connection whose request head is not complete within this time (from"
              + " the connection, or from the first byte of its next request); guards against"
              + " clients that send headers a byte at a time (default: ${DEFAULT-VALUE}; 0: no"
              + " limit).")
  Duration clientHeaderTimeout;

  @Option(
      names = "--client-idle-timeout",
      defaultValue = "120s",
      description =
          "Close a kept-alive client connection that sends no new request for this long; a"
              + " request in progress is never cut by it (default: ${DEFAULT-VALUE}; 0: no"
              + " limit).")
  Duration clientIdleTimeout;

  @Option(
      names = "--upstream-ca",
      description =
          "Trust these certificate authorities (a PEM bundle) for an https upstream instead of the"
              + " JVM's (default: the file named by SSL_CERT_FILE, when set).")
  Path upstreamCa;

  @Option(
      names = "--upstream-client-cert",
      description =
          "Show this client certificate (PEM; with --upstream-client-key) to an https upstream"
              + " that requires one (mutual TLS).")
  Path upstreamClientCert;

  @Option(
      names = "--upstream-client-key",
      description = "The private key of --upstream-client-cert (PEM).")
  Path upstreamClientKey;

  @Option(
      names = "--upstream-insecure",
      description =
          "Do not check the https upstream's certificate at all (warned about at every start);"
              + " prefer --upstream-ca.")
  boolean upstreamInsecure;

  @Option(
      names = "--prime",
      defaultValue = "2s",
      description =
          "Before listening, run the forwarding and measuring path against a simulator inside the"
              + " process for this long, so that the first requests meet compiled code; the port"
              + " opens after it (default: ${DEFAULT-VALUE}; 0: listen at once).")
  Duration prime;

  @Option(
      names = "--drain-timeout",
      defaultValue = "30s",
      description =
          "On Ctrl-C or SIGTERM, how long requests in flight may take to finish"
              + " (default: ${DEFAULT-VALUE}).")
  Duration drainTimeout;

  @Mixin
  OutageBufferOptions outageBuffer = new OutageBufferOptions(Publisher.DEFAULT_OUTAGE_BUFFER);

  @Mixin EventLoopsOptions eventLoops;

  @Mixin EngineMetricsOptions engineMetrics;

  @Option(
      names = "--max-connections",
      defaultValue = "1000",
      description =
          "Upstream connections each event loop may open (default: ${DEFAULT-VALUE}); more"
              + " concurrent requests wait for one in the proxy's own queue, at most"
              + " --connect-timeout, then get 503 proxy_queue_timeout.")
  int maxConnections;

  @Override
  public Integer call() throws InterruptedException {
    ProxyConfig config = config();
    String insecure = config.upstreamTls().insecureWarning(config.upstream().url());
    if (insecure != null) {
      PrintWriter err = spec.commandLine().getErr();
      err.println("tpot proxy: warning: " + insecure);
      err.flush();
    }
    // not checked first: the proxy serves while Kafka is away (reached in the background, each
    // attempt bounded by --kafka-timeout)
    KafkaSettings settings =
        KafkaSettings.of(kafka.resolve())
            .withTopic(events.topic)
            .withPartitions(partitions.partitions)
            .withOutageBuffer(outageBuffer.events);
    TpotProxy proxy = TpotProxy.start(config, settings, new PrimingSimulator());
    PrintWriter out = spec.commandLine().getOut();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  out.println("Stopping the proxy (requests in flight may finish)");
                  out.flush();
                  proxy.close();
                  out.println(
                      "Stopped: "
                          + proxy.events().published()
                          + " events published, "
                          + proxy.events().dropped()
                          + " dropped");
                  if (proxy.engineScrapes() != null) {
                    out.println(proxy.engineScrapes().line());
                  }
                  out.flush();
                  stopped.countDown();
                },
                "proxy-stop"));
    out.println(
        "tpot proxy listening on "
            + proxy.baseUrl()
            + " -> "
            + config.upstream().url()
            + " ("
            + proxy.startup()
            + ")");
    out.println(
        "Events: "
            + settings.topic()
            + " at "
            + settings.bootstrapServers()
            + " as producer "
            + proxy.producerId()
            + " (run "
            + config.runId()
            + (config.sample() < 1 ? ", sampling " + config.sample() : "")
            + ")");
    if (config.prefixHashKey() != null) {
      out.println(
          "Prefix hashes: on every start event, keyed by " + config.prefixHashKey().origin());
    }
    if (proxy.metricsPort() >= 0) {
      out.println(
          "Metrics: http://" + hostForUrl(config.host()) + ":" + proxy.metricsPort() + "/metrics");
    }
    // publishing that stopped for good (an Error on its thread) stops the proxy, loudly: one that
    // forwarded without measuring would look healthy while the topic went silent
    AtomicReference<String> failed = new AtomicReference<>();
    proxy
        .events()
        .onFailure(
            e -> {
              failed.set(e.getMessage());
              PrintWriter err = spec.commandLine().getErr();
              err.println("tpot proxy: " + e.getMessage() + ". Stopping the proxy (exit 1)");
              err.flush();
              new Thread(
                      () -> {
                        proxy.close();
                        stopped.countDown();
                      },
                      "proxy-stop-on-failure")
                  .start();
            });
    out.println("Ctrl-C to stop.");
    out.flush();
    stopped.await();
    return failed.get() == null ? 0 : 1;
  }

  ProxyConfig config() {
    String host = "127.0.0.1";
    String portText = listen.trim();
    int colon = portText.lastIndexOf(':');
    if (colon >= 0) {
      host = portText.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      portText = portText.substring(colon + 1);
    }
    int port;
    try {
      port = Integer.parseInt(portText);
    } catch (NumberFormatException e) {
      throw new ParameterException(
          spec.commandLine(),
          "--listen '" + listen + "': expected a port or HOST:PORT, e.g. 8080 or 0.0.0.0:8080");
    }
    Upstream target;
    try {
      target = Upstream.parse(upstream);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    for (Map.Entry<String, String> h : labelHeaders.entrySet()) {
      if (!HEADER.matcher(h.getKey()).matches() || !LABEL.matcher(h.getValue()).matches()) {
        throw new ParameterException(
            spec.commandLine(),
            "--label-header '"
                + h.getKey()
                + "="
                + h.getValue()
                + "': expected HEADER=LABEL, a header name and a label name (letters, digits,"
                + " _), e.g. X-App=app");
      }
      if (h.getValue().equals("route")) {
        throw new ParameterException(
            spec.commandLine(),
            "--label-header: the label 'route' is the request's API route (/v1/chat/completions,"
                + " /v1/completions or /v1/messages); choose another name");
      }
    }
    for (String name : labelOptions.labels.keySet()) {
      if (!LABEL.matcher(name).matches()) {
        throw new ParameterException(
            spec.commandLine(),
            "--label '" + name + "': a label name is letters, digits and _ (e.g. target=gw-a)");
      }
    }
    if (prefixHashKeyFile != null && !capturePrefixHashes) {
      throw new ParameterException(
          spec.commandLine(),
          "--prefix-hash-key-file is the key of --capture-prefix-hashes: give both, or neither");
    }
    try {
      ProxyConfig config =
          ProxyConfig.of(port, target)
              .withHost(host)
              .withLabelHeaders(labelHeaders)
              .withLabels(labelOptions.labels)
              .withSample(sample)
              .withRunId(runId)
              .withRequestIdHeader(requestIdHeader)
              .withTimeouts(connectTimeout, idleTimeout)
              .withClientTimeouts(clientHeaderTimeout, clientIdleTimeout)
              .withMaxConnectionsPerLoop(maxConnections)
              .withMetricsPort(metricsPort)
              .withDrainTimeout(drainTimeout)
              .withPrime(prime)
              .withListenTls(
                  tlsCert == null && tlsKey == null && tlsClientCa == null
                      ? TlsFiles.NONE
                      : new TlsFiles(tlsClientCa, tlsCert, tlsKey))
              .withClientAuth(ProxyConfig.clientAuth(clientAuth, tlsClientCa != null))
              .withUpstreamTls(
                  ClientTls.of(
                      upstreamCa,
                      "--upstream-ca",
                      upstreamClientCert,
                      upstreamClientKey,
                      upstreamInsecure,
                      System.getenv()))
              .withEngineMetrics(engineMetrics.settings())
              .withPrefixHashKey(
                  !capturePrefixHashes
                      ? null
                      : prefixHashKeyFile == null
                          ? PrefixHashKey.random()
                          : PrefixHashKey.fromFile(prefixHashKeyFile));
      return eventLoops.eventLoops == null ? config : config.withEventLoops(eventLoops.eventLoops);
    } catch (IllegalArgumentException | ConfigException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  private static String hostForUrl(String host) {
    if (host.equals("0.0.0.0") || host.equals("::")) {
      return "127.0.0.1";
    }
    return host.contains(":") ? "[" + host + "]" : host;
  }
}

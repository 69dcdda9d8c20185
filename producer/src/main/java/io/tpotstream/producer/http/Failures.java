package io.tpotstream.producer.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.common.secret.Secrets;
import io.tpotstream.producer.config.ApiKey;
import io.tpotstream.producer.config.ProxySettings;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.StreamResetException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;

/**
 * Turns HTTP statuses and network exceptions into error classes with messages that say what to
 * check; every message passes through the config's {@link Secrets} (URLs masked, no secret quoted).
 */
public final class Failures {
  private static final Pattern TITLE =
      Pattern.compile("<title[^>]*>(.*?)</title>", Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
  private static final Pattern TAGS = Pattern.compile("<[^>]+>");
  private static final int MAX_DETAIL = 200;

  private Failures() {}

  /**
   * A redirect: not followed (a POST must not change its target silently); class {@code protocol}.
   */
  public static RequestFailure ofRedirect(
      int status, String method, URI url, String location, Secrets secrets) {
    String message =
        "HTTP "
            + status
            + " from "
            + method
            + " "
            + url
            + ": redirected to "
            + (location == null ? "(no Location)" : location)
            + "; redirects are not followed: set base_url to the final address (https?)";
    return new RequestFailure(ErrorClass.PROTOCOL, status, secrets.redact(message));
  }

  /** A non-2xx answer to {@code method url}. */
  public static RequestFailure ofStatus(
      int status,
      String method,
      URI url,
      String body,
      String retryAfter,
      ApiKey key,
      Secrets secrets) {
    String detail = serverText(body);
    String said = detail.isEmpty() ? "" : " (server said: " + detail + ")";
    String what = "HTTP " + status + " from " + method + " " + url;
    String message =
        switch (status) {
          case 401 ->
              what
                  + said
                  + (key == null
                      ? ": no API key was sent: set config key api_key or TPOT_API_KEY"
                      : ": check the API key (taken from " + key.source() + ")");
          case 403 ->
              what
                  + said
                  + ": the key is not allowed to do this: check the key's permissions and model"
                  + " access";
          case 404 ->
              what
                  + said
                  + ": check base_url and path (URL tried: "
                  + url
                  + ") and the model id (tpot models lists them)";
          case 429 ->
              what
                  + ": rate limited"
                  + (retryAfter == null
                      ? " (no Retry-After)"
                      : " (Retry-After: " + retryAfter + ")")
                  + said
                  + ": lower concurrency or rate, or probe the limit with a small concurrency first";
          default ->
              status >= 500
                  ? what + said + ": the server or gateway failed; check its health and logs"
                  : what + said + ": check the request (model, max_tokens, extra_body, headers)";
        };
    return new RequestFailure(ErrorClass.ofStatus(status), status, secrets.redact(message));
  }

  /** How the producer's options that give a CA bundle are named in messages. */
  static final String CA_OPTIONS = "ca_file (--ca-file) or SSL_CERT_FILE";

  /** How the producer's options that give a client certificate are named in messages. */
  static final String CERT_OPTIONS = "client_cert and client_key (--client-cert, --client-key)";

  /**
   * A failure before any response: connect, TLS, proxy, timeouts while connecting; {@code tls} says
   * what the server's certificate was checked against.
   */
  public static RequestFailure ofConnect(
      Throwable cause,
      URI target,
      ProxySettings proxy,
      Duration connectTimeout,
      ClientTls tls,
      Secrets secrets) {
    String hostPort = hostPort(target);
    String text = describe(cause);
    ErrorClass cls = ErrorClass.CONNECTION;
    String message;
    if (isTimeout(cause)) {
      cls = ErrorClass.TIMEOUT_CONNECT;
      message =
          "no connection to "
              + (proxy.enabled() ? proxy.describe() + " for " + hostPort : hostPort)
              + " within "
              + connectTimeout.toMillis()
              + " ms: check that the host is up and reachable"
              + (proxy.enabled() ? " and the proxy" : "")
              + " (timeouts.connect)";
    } else if (isProxyFailure(cause)) {
      message =
          "the "
              + proxy.describe()
              + " failed to reach "
              + hostPort
              + " ("
              + text
              + "): check "
              + proxySource(proxy)
              + " or add the host to NO_PROXY";
    } else if (proxy.enabled()) {
      message =
          "cannot connect through "
              + proxy.describe()
              + " to "
              + hostPort
              + " ("
              + text
              + "): check "
              + proxySource(proxy)
              + " (a stale proxy?) or add the host to NO_PROXY";
    } else if (root(cause) instanceof UnknownHostException) {
      message =
          "cannot resolve host "
              + target.getHost()
              + " ("
              + text
              + "): check base_url and DNS (no proxy in use)";
    } else if (find(cause, CertificateException.class) != null) {
      // the certificate itself: untrusted or for another host; no retry can fix it
      return new RequestFailure(
          ErrorClass.CONNECTION,
          null,
          secrets.redact(
              "TLS handshake with "
                  + hostPort
                  + " failed: the server's certificate was refused ("
                  + describe(find(cause, CertificateException.class))
                  + "): "
                  + tls.refusedServerAdvice(target.getHost(), CA_OPTIONS)),
          true);
    } else if (ClientTls.clientCertificateRefused(cause)) {
      return clientRefused(cause, hostPort, tls, secrets);
    } else if (find(cause, SSLException.class) != null) {
      message =
          "TLS handshake with "
              + hostPort
              + " failed ("
              + text
              + "): check the URL scheme and the server certificate";
    } else {
      message =
          "cannot connect to "
              + hostPort
              + " ("
              + text
              + "): check base_url (host and port) and that the server is up (no proxy in use)";
    }
    return new RequestFailure(cls, null, secrets.redact(message));
  }

  /**
   * The server's alert about our client certificate, which under TLS 1.3 arrives after the
   * handshake looked done: no retry can fix it.
   */
  private static RequestFailure clientRefused(
      Throwable cause, String hostPort, ClientTls tls, Secrets secrets) {
    String message =
        "TLS with "
            + hostPort
            + " failed ("
            + describe(cause)
            + "): "
            + tls.refusedClientAdvice(CERT_OPTIONS);
    return new RequestFailure(ErrorClass.CONNECTION, null, secrets.redact(message), true);
  }

  /** The connection failed while waiting for or reading the response. */
  public static RequestFailure ofStream(
      Throwable cause,
      URI target,
      ProxySettings proxy,
      int chunks,
      boolean headersReceived,
      ClientTls tls,
      Secrets secrets) {
    String hostPort = hostPort(target);
    if (!headersReceived && ClientTls.clientCertificateRefused(cause)) {
      return clientRefused(cause, hostPort, tls, secrets);
    }
    String via = proxy.enabled() ? " via " + proxy.describe() : "";
    Throwable root = root(cause);
    String message;
    ErrorClass cls;
    if (headersReceived
        && (cause instanceof HttpClosedException || root instanceof ClosedChannelException)) {
      cls = ErrorClass.TRUNCATED;
      message =
          "the stream from "
              + hostPort
              + via
              + " was cut after "
              + chunks
              + " token chunks (connection closed before [DONE] or a finish reason): the server"
              + " or a proxy on the way ended it early";
    } else {
      cls = ErrorClass.CONNECTION;
      message =
          "connection to "
              + hostPort
              + via
              + (headersReceived
                  ? " broke after " + chunks + " token chunks"
                  : " broke before the answer")
              + " ("
              + describe(cause)
              + "): check the server and the network"
              + (proxy.enabled() ? " and the proxy" : "");
    }
    return new RequestFailure(cls, null, secrets.redact(message));
  }

  /**
   * The readable part of an error body: the JSON {@code error.message}/{@code message}/{@code
   * detail}, an HTML page's title, or the first line of text; at most 200 characters.
   */
  public static String serverText(String body) {
    if (body == null || body.isBlank()) {
      return "";
    }
    String trimmed = body.strip();
    if (trimmed.startsWith("{")) {
      try {
        JsonNode node = Json.MAPPER.readTree(trimmed);
        JsonNode error = node.get("error");
        JsonNode message = null;
        if (error != null && error.isObject()) {
          message = error.get("message");
        } else if (error != null && error.isTextual()) {
          message = error;
        }
        if (message == null) {
          message = node.has("message") ? node.get("message") : node.get("detail");
        }
        if (message != null && !message.isNull()) {
          return cut(message.isTextual() ? message.asText() : message.toString());
        }
      } catch (IOException e) {
        // not JSON after all: fall through to plain text
      }
    }
    if (looksLikeHtml(trimmed)) {
      Matcher title = TITLE.matcher(trimmed);
      String text = title.find() ? title.group(1) : TAGS.matcher(trimmed).replaceAll(" ");
      return "HTML page: " + cut(text.replaceAll("\\s+", " ").strip());
    }
    int nl = trimmed.indexOf('\n');
    return cut(nl < 0 ? trimmed : trimmed.substring(0, nl));
  }

  static boolean looksLikeHtml(String text) {
    String head = text.substring(0, Math.min(text.length(), 100)).toLowerCase(Locale.ROOT);
    return head.startsWith("<!doctype html") || head.startsWith("<html") || head.contains("<head");
  }

  private static String cut(String text) {
    String oneLine = text.replace('\n', ' ').replace('\r', ' ').strip();
    return oneLine.length() <= MAX_DETAIL ? oneLine : oneLine.substring(0, MAX_DETAIL) + "…";
  }

  /** True when {@code cause} is a timeout of any layer (Netty's connect, a socket's, Vert.x's). */
  public static boolean isTimeout(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof TimeoutException
          || t instanceof io.netty.channel.ConnectTimeoutException
          || t instanceof java.net.SocketTimeoutException
          || t.getClass().getSimpleName().contains("Timeout")) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  private static boolean isProxyFailure(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof io.netty.handler.proxy.ProxyConnectException) {
        return !(t.getCause() instanceof ConnectException);
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  private static String proxySource(ProxySettings proxy) {
    return proxy.source() == null ? "the proxy settings" : proxy.source();
  }

  /** The first throwable of {@code type} in {@code t}'s cause chain, or null. */
  public static <T extends Throwable> T find(Throwable t, Class<T> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) {
        return type.cast(c);
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return null;
  }

  static Throwable root(Throwable t) {
    Throwable r = t;
    while (r.getCause() != null && r.getCause() != r) {
      r = r.getCause();
    }
    return r;
  }

  /** One line: the root exception's simple name and message, e.g. "connection refused". */
  public static String describe(Throwable t) {
    Throwable r = root(t);
    if (r instanceof ConnectException || r instanceof NoRouteToHostException) {
      String m = r.getMessage() == null ? "" : r.getMessage().toLowerCase(Locale.ROOT);
      if (m.contains("refused")) {
        return "connection refused";
      }
    }
    if (r instanceof StreamResetException) {
      return "stream reset";
    }
    String message = r.getMessage();
    if (message == null || message.isBlank()) {
      return r.getClass().getSimpleName();
    }
    int nl = message.indexOf('\n');
    return cut(nl < 0 ? message : message.substring(0, nl));
  }

  /** {@code host:port} of {@code url}, the scheme's port when it names none. */
  public static String hostPort(URI url) {
    int port = url.getPort();
    if (port < 0) {
      port = "https".equalsIgnoreCase(url.getScheme()) ? 443 : 80;
    }
    return url.getHost() + ":" + port;
  }
}

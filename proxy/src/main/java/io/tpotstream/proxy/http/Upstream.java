package io.tpotstream.proxy.http;

import io.tpotstream.common.secret.Secrets;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * The server the proxy forwards to, from {@code --upstream}: {@code http} or {@code https}, a host,
 * an optional port and an optional path prefix that is put before every request's path (so {@code
 * --upstream https://gateway.example/openai} turns {@code /v1/chat/completions} into {@code
 * /openai/v1/chat/completions}).
 *
 * @param url the URL as given, without user info or query (printable: parse refuses both, and
 *     messages about the URL show it through {@link Secrets})
 * @param ssl true for https
 * @param host the host name or address
 * @param port the port (80 or 443 unless given)
 * @param authority the {@code Host} header sent upstream: the URL's host and, when given, port
 * @param pathPrefix the path before every request's path, without a trailing slash (may be empty)
 */
public record Upstream(
    String url, boolean ssl, String host, int port, String authority, String pathPrefix) {

  /**
   * Reads {@code --upstream}.
   *
   * @throws IllegalArgumentException naming what is wrong and what is expected
   */
  public static Upstream parse(String text) {
    // the URL as messages show it: a user-info or query key never echoed back
    String shown = Secrets.NONE.url(text.trim());
    URI uri;
    try {
      uri = new URI(text.trim());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "--upstream '"
              + shown
              + "' is not a URL ("
              + e.getReason()
              + "): e.g. https://api.openai.com");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new IllegalArgumentException(
          "--upstream '"
              + shown
              + "' must start with http:// or https:// (e.g. https://api.openai.com or"
              + " http://127.0.0.1:8000)");
    }
    if (uri.getHost() == null || uri.getHost().isEmpty()) {
      throw new IllegalArgumentException(
          "--upstream '" + shown + "' has no host: e.g. https://api.openai.com");
    }
    if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
      throw new IllegalArgumentException(
          "--upstream '"
              + shown
              + "' has a query or fragment: give only scheme, host, port and path prefix; the"
              + " application's own query strings are forwarded as they are");
    }
    if (uri.getRawUserInfo() != null) {
      throw new IllegalArgumentException(
          "--upstream has user info (user:password@): credentials belong in the application's"
              + " request headers, which the proxy forwards unchanged");
    }
    boolean ssl = scheme.equals("https");
    int port = uri.getPort() > 0 ? uri.getPort() : ssl ? 443 : 80;
    String host = uri.getHost();
    String bareHost = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
    String authority = uri.getPort() > 0 ? host + ":" + uri.getPort() : host;
    String prefix = uri.getRawPath() == null ? "" : uri.getRawPath();
    while (prefix.endsWith("/")) {
      prefix = prefix.substring(0, prefix.length() - 1);
    }
    String printable = Secrets.NONE.url(scheme + "://" + authority + prefix);
    return new Upstream(printable, ssl, bareHost, port, authority, prefix);
  }

  /** The request URI to send upstream for a request that came in with {@code uri}. */
  public String target(String uri) {
    if (pathPrefix.isEmpty()) {
      return uri;
    }
    return uri.startsWith("/") ? pathPrefix + uri : pathPrefix + "/" + uri;
  }
}

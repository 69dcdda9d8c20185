package io.tpotstream.producer.config;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The HTTP proxy for the target, read the way curl reads it: {@code HTTPS_PROXY} for https targets,
 * {@code HTTP_PROXY} for http ones (lower-case names too), skipped when the host matches {@code
 * NO_PROXY}. The config key {@code proxy} overrides the environment ({@code "none"} turns it off).
 *
 * @param host proxy host, null when requests go direct
 * @param port proxy port
 * @param username proxy user from the URL, or null
 * @param password proxy password from the URL, or null (never printed)
 * @param source where the proxy came from (e.g. {@code HTTPS_PROXY}), safe to print
 * @param nonProxyHosts the NO_PROXY entries as Vert.x non-proxy host patterns
 */
public record ProxySettings(
    String host,
    int port,
    String username,
    String password,
    String source,
    List<String> nonProxyHosts) {

  /** No proxy. */
  public static final ProxySettings DIRECT =
      new ProxySettings(null, 0, null, null, null, List.of());

  public boolean enabled() {
    return host != null;
  }

  /** {@code host:port (from SOURCE)}, for error messages. */
  public String describe() {
    return enabled() ? "proxy " + host + ":" + port + " (from " + source + ")" : "no proxy";
  }

  @Override
  public String toString() {
    return describe();
  }

  /**
   * Resolves the proxy for {@code target} from the config value {@code configured} (may be null)
   * and the environment {@code env}.
   */
  static ProxySettings resolve(String configured, URI target, Map<String, String> env) {
    String noProxy = firstSet(env, "NO_PROXY", "no_proxy");
    List<String> patterns = nonProxyPatterns(noProxy);
    String source;
    String value;
    if (configured != null) {
      source = "config key 'proxy'";
      value = configured;
      if (value.isBlank() || value.equalsIgnoreCase("none") || value.equalsIgnoreCase("direct")) {
        return DIRECT;
      }
    } else {
      boolean https = "https".equalsIgnoreCase(target.getScheme());
      String[] names =
          https
              ? new String[] {"HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"}
              : new String[] {"HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"};
      source = null;
      value = null;
      for (String name : names) {
        String v = env.get(name);
        if (v != null && !v.isBlank()) {
          source = name;
          value = v.trim();
          break;
        }
      }
      if (value == null || bypassed(target.getHost(), noProxy)) {
        return DIRECT;
      }
    }
    URI uri;
    try {
      uri = URI.create(value.contains("://") ? value : "http://" + value);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "proxy from " + source + " is not a URL (expected http://host:port): check " + source);
    }
    if (uri.getHost() == null) {
      throw new ConfigException(
          "proxy from " + source + " has no host (expected http://host:port): check " + source);
    }
    if (uri.getScheme() != null && !uri.getScheme().toLowerCase(Locale.ROOT).startsWith("http")) {
      throw new ConfigException(
          "proxy from "
              + source
              + " uses scheme '"
              + uri.getScheme()
              + "': only http:// proxies are supported (HTTPS goes through CONNECT)");
    }
    int port = uri.getPort() > 0 ? uri.getPort() : 80;
    String user = null;
    String password = null;
    if (uri.getRawUserInfo() != null) {
      String[] parts = uri.getUserInfo().split(":", 2);
      user = parts[0];
      password = parts.length > 1 ? parts[1] : null;
    }
    return new ProxySettings(uri.getHost(), port, user, password, source, patterns);
  }

  /** True when {@code host} matches an entry of the comma-separated NO_PROXY list. */
  static boolean bypassed(String host, String noProxy) {
    if (noProxy == null || noProxy.isBlank() || host == null) {
      return false;
    }
    String h = stripBrackets(host.toLowerCase(Locale.ROOT));
    for (String raw : noProxy.split("[,\\s]+")) {
      String entry = raw.trim().toLowerCase(Locale.ROOT);
      if (entry.isEmpty()) {
        continue;
      }
      if (entry.equals("*")) {
        return true;
      }
      entry = stripPort(entry);
      if (entry.startsWith("*.")) {
        entry = entry.substring(1);
      }
      if (entry.startsWith(".")) {
        if (h.endsWith(entry) || h.equals(entry.substring(1))) {
          return true;
        }
      } else if (h.equals(entry) || h.endsWith("." + entry)) {
        return true;
      }
    }
    return false;
  }

  private static List<String> nonProxyPatterns(String noProxy) {
    List<String> patterns = new ArrayList<>();
    if (noProxy == null) {
      return patterns;
    }
    for (String raw : noProxy.split("[,\\s]+")) {
      String entry = stripPort(raw.trim().toLowerCase(Locale.ROOT));
      if (entry.isEmpty() || entry.equals("*")) {
        continue;
      }
      if (entry.startsWith("*.")) {
        patterns.add(entry);
      } else if (entry.startsWith(".")) {
        patterns.add("*" + entry);
      } else {
        patterns.add(entry);
        patterns.add("*." + entry);
      }
    }
    return List.copyOf(patterns);
  }

  private static String stripPort(String entry) {
    if (entry.startsWith("[")) {
      int close = entry.indexOf(']');
      return close > 0 ? entry.substring(1, close) : entry;
    }
    int colon = entry.lastIndexOf(':');
    return colon > 0 && entry.indexOf(':') == colon ? entry.substring(0, colon) : entry;
  }

  private static String stripBrackets(String host) {
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }

  private static String firstSet(Map<String, String> env, String... names) {
    for (String name : names) {
      String v = env.get(name);
      if (v != null && !v.isBlank()) {
        return v;
      }
    }
    return null;
  }
}

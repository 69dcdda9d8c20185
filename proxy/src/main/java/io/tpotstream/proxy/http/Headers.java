package io.tpotstream.proxy.http;

import io.vertx.core.MultiMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** Which headers a proxy forwards: all but the hop-by-hop ones (RFC 9110, section 7.6.1). */
final class Headers {
  private static final Set<String> HOP_BY_HOP =
      Set.of(
          "connection",
          "keep-alive",
          "proxy-connection",
          "proxy-authenticate",
          "proxy-authorization",
          "te",
          "trailer",
          "transfer-encoding",
          "upgrade");

  private Headers() {}

  /**
   * Copies {@code from} into {@code to} in order, leaving out hop-by-hop headers, those the {@code
   * Connection} header names, and {@code also} (lower case).
   */
  static void copyEndToEnd(MultiMap from, MultiMap to, Set<String> also) {
    Set<String> named = connectionNamed(from);
    for (Map.Entry<String, String> h : from) {
      String name = h.getKey().toLowerCase(Locale.ROOT);
      if (!HOP_BY_HOP.contains(name) && !named.contains(name) && !also.contains(name)) {
        to.add(h.getKey(), h.getValue());
      }
    }
  }

  /**
   * Copies a response's end-to-end headers; when the response to the client is chunked, a {@code
   * Transfer-Encoding: chunked} the upstream sent stays where it was (the proxy chunks again).
   */
  static void copyResponse(MultiMap from, MultiMap to, boolean chunked) {
    Set<String> named = connectionNamed(from);
    for (Map.Entry<String, String> h : from) {
      String name = h.getKey().toLowerCase(Locale.ROOT);
      boolean keptChunked =
          chunked
              && name.equals("transfer-encoding")
              && h.getValue().trim().equalsIgnoreCase("chunked");
      if (keptChunked || (!HOP_BY_HOP.contains(name) && !named.contains(name))) {
        to.add(h.getKey(), h.getValue());
      }
    }
  }

  private static Set<String> connectionNamed(MultiMap headers) {
    Set<String> named = new TreeSet<>();
    for (String value : headers.getAll("Connection")) {
      for (String token : value.split(",")) {
        String t = token.trim().toLowerCase(Locale.ROOT);
        if (!t.isEmpty()) {
          named.add(t);
        }
      }
    }
    return named;
  }
}

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
          "upgrade",
          // an h2c upgrade offer's settings, for this connection only (RFC 9113, section 3.2.1)
          "http2-settings");

  private Headers() {}

  /**
   * Copies a request's end-to-end headers in order, {@code Expect} only when {@code keepExpect} (a
   * 100-continue the upstream answers, relayed); {@code Host} keeps its place and spelling but
   * names the upstream ({@code authority}), first when the client sent none.
   */
  static void copyRequest(MultiMap from, MultiMap to, String authority, boolean keepExpect) {
    Set<String> named = connectionNamed(from);
    if (!from.contains("Host")) {
      to.add("Host", authority);
    }
    for (Map.Entry<String, String> h : from) {
      String name = h.getKey().toLowerCase(Locale.ROOT);
      if (name.equals("host")) {
        to.add(h.getKey(), authority);
      } else if (!HOP_BY_HOP.contains(name)
          && !named.contains(name)
          && (keepExpect || !name.equals("expect"))) {
        to.add(h.getKey(), h.getValue());
      }
    }
  }

  /** The end-to-end headers of {@code from} (e.g. a 103's hints), in order. */
  static MultiMap endToEnd(MultiMap from) {
    MultiMap to = MultiMap.caseInsensitiveMultiMap();
    copyEndToEnd(from, to);
    return to;
  }

  /** Copies end-to-end headers (trailers) in order. */
  static void copyEndToEnd(MultiMap from, MultiMap to) {
    copyResponse(from, to, false);
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

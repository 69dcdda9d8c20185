package io.tpotstream.proxy.measure;

import io.tpotstream.producer.config.ApiKind;
import io.vertx.core.http.HttpMethod;

/**
 * Which API a request speaks, from its method and path (matched on the suffix, so any gateway
 * prefix works, as in the simulator): {@code POST …/chat/completions} and {@code POST
 * …/completions} are OpenAI, {@code POST …/messages} is Anthropic; everything else is only
 * forwarded.
 */
public enum Route {
  OPENAI,
  ANTHROPIC,
  OTHER;

  /** The route of a request. */
  public static Route of(HttpMethod method, String path) {
    if (method != HttpMethod.POST || path == null) {
      return OTHER;
    }
    String p = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    if (p.endsWith("/chat/completions") || p.endsWith("/completions")) {
      return OPENAI;
    }
    if (p.endsWith("/messages")) {
      return ANTHROPIC;
    }
    return OTHER;
  }

  /**
   * The route label of a request to {@code path}: the API's own path, whatever prefix or ids the
   * request's path carried, so that a path never becomes a series ({@code other} for paths that are
   * only forwarded).
   */
  public static String template(String path) {
    String p = path == null ? "" : path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    if (p.endsWith("/chat/completions")) {
      return "/v1/chat/completions";
    }
    if (p.endsWith("/completions")) {
      return "/v1/completions";
    }
    return p.endsWith("/messages") ? "/v1/messages" : "other";
  }

  /** True when responses on this route may be measured. */
  public boolean measurable() {
    return this != OTHER;
  }

  /** The producer's dialect for this route (OTHER has none). */
  public ApiKind api() {
    return this == ANTHROPIC ? ApiKind.ANTHROPIC : ApiKind.OPENAI;
  }
}

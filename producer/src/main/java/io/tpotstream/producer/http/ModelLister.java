package io.tpotstream.producer.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.dialect.Dialect;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** {@code GET /v1/models}: the model ids a target serves, with the producer's error messages. */
public final class ModelLister {
  private ModelLister() {}

  /**
   * Lists the model ids; fails with a {@link RequestFailedException} whose message says what to
   * check.
   */
  public static Future<List<String>> list(Vertx vertx, ProducerConfig config) {
    HttpClientAgent client = HttpClients.create(vertx, config);
    URI url = config.modelsUrl();
    RequestOptions options =
        new RequestOptions()
            .setMethod(HttpMethod.GET)
            .setAbsoluteURI(url.toString())
            .setConnectTimeout(config.timeouts().connect().toMillis())
            .setIdleTimeout(config.timeouts().total().toMillis())
            .putHeader("Accept", "application/json")
            .putHeader("Accept-Encoding", "identity")
            .putHeader("User-Agent", HttpClients.USER_AGENT);
    Dialect.of(config.api()).authHeaders(config, options::putHeader);
    for (Map.Entry<String, String> h : config.headers().entrySet()) {
      options.putHeader(h.getKey(), h.getValue());
    }
    return client
        .request(options)
        .recover(
            e ->
                Future.failedFuture(
                    new RequestFailedException(
                        Failures.ofConnect(
                            e,
                            url,
                            config.proxy(),
                            config.timeouts().connect(),
                            config.tls(),
                            config.secrets()))))
        .compose(
            req ->
                req.send()
                    .compose(
                        resp ->
                            resp.body()
                                .map(
                                    body -> {
                                      String text = body.toString();
                                      int status = resp.statusCode();
                                      if (status < 200 || status > 299) {
                                        throw new RequestFailedException(
                                            Failures.ofStatus(
                                                status,
                                                "GET",
                                                url,
                                                text,
                                                resp.getHeader("Retry-After"),
                                                config.apiKey(),
                                                config.secrets()));
                                      }
                                      return ids(text, url, config);
                                    }))
                    .recover(
                        e ->
                            Future.failedFuture(
                                e instanceof RequestFailedException
                                    ? e
                                    : new RequestFailedException(
                                        Failures.ofStream(
                                            e,
                                            url,
                                            config.proxy(),
                                            0,
                                            false,
                                            config.tls(),
                                            config.secrets())))))
        .eventually(client::close);
  }

  private static List<String> ids(String body, URI url, ProducerConfig config) {
    JsonNode root;
    try {
      root = Json.MAPPER.readTree(body);
    } catch (IOException e) {
      throw notAList(url, body, config);
    }
    JsonNode list = root == null ? null : root.isArray() ? root : root.get("data");
    if (list == null || !list.isArray()) {
      list = root == null ? null : root.get("models");
    }
    if (list == null || !list.isArray()) {
      throw notAList(url, body, config);
    }
    List<String> ids = new ArrayList<>();
    for (JsonNode m : list) {
      if (m.isTextual()) {
        ids.add(m.asText());
      } else if (m.path("id").isTextual()) {
        ids.add(m.get("id").asText());
      } else if (m.path("name").isTextual()) {
        ids.add(m.get("name").asText());
      }
    }
    return ids;
  }

  private static RequestFailedException notAList(URI url, String body, ProducerConfig config) {
    String message =
        "GET "
            + url
            + " did not return a model list ("
            + Failures.serverText(body)
            + "): check base_url";
    return new RequestFailedException(
        new RequestFailure(ErrorClass.PROTOCOL, 200, config.secrets().redact(message)));
  }

  /** A request that failed; its message is the one-line, redacted {@link RequestFailure}. */
  public static final class RequestFailedException extends RuntimeException {
    private final transient RequestFailure failure;

    public RequestFailedException(RequestFailure failure) {
      super(failure.errorClass().wire() + ": " + failure.message(), null, false, false);
      this.failure = failure;
    }

    public RequestFailure failure() {
      return failure;
    }
  }
}

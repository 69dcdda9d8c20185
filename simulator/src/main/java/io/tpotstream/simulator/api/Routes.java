package io.tpotstream.simulator.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.simulator.cache.PrefixCache;
import io.tpotstream.simulator.engine.EngineMetrics;
import io.tpotstream.simulator.engine.RequestMetrics;
import io.tpotstream.simulator.pacing.LoopTimer;
import io.tpotstream.simulator.plan.Fault;
import io.tpotstream.simulator.plan.Planner;
import io.tpotstream.simulator.plan.ResponsePlan;
import io.tpotstream.simulator.profile.ModelProfile;
import io.tpotstream.simulator.profile.Profiles;
import io.tpotstream.simulator.truth.GroundTruth;
import io.tpotstream.simulator.truth.Outcome;
import io.tpotstream.simulator.truth.RequestRecorder;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Serves every request. The API paths match on their suffix after {@code /v1}, so any base path
 * that ends in {@code /v1} works ({@code /v1/chat/completions}, {@code /api/v1/chat/completions},
 * {@code /openai/v1/messages}), and so does none ({@code /chat/completions}); another version or
 * base ({@code /v2/chat/completions}, {@code /api/chat/completions}) gets the 404 an
 * OpenAI-compatible server gives, so that a wrong path shows here as it would there. Shared by the
 * event loops: its state is immutable or thread-safe.
 */
public final class Routes {
  private static final String REQUEST_ID_HEADER = "X-Request-Id";

  private final Map<String, ModelProfile> profiles;
  private final long runSeed;
  private final byte[] apiKey;
  private final GroundTruth truth;
  private final PrefixCache prefixCache;
  private final AtomicLong unnamedRequests = new AtomicLong();
  private final String modelsJson;

  /**
   * @param apiKey the key clients must send, or null to accept any
   * @param prefixCache the prompt blocks held (shared by every event loop), or null for none
   */
  public Routes(
      Map<String, ModelProfile> profiles,
      long runSeed,
      String apiKey,
      GroundTruth truth,
      PrefixCache prefixCache) {
    Map<String, ModelProfile> served = new java.util.HashMap<>(profiles);
    served.putIfAbsent(SimulatorPrimer.MODEL, SimulatorPrimer.PROFILE);
    served.putIfAbsent(SimulatorPrimer.CALIBRATION_MODEL, SimulatorPrimer.CALIBRATION_PROFILE);
    this.profiles = Map.copyOf(served);
    this.runSeed = runSeed;
    this.apiKey = apiKey == null ? null : apiKey.getBytes(StandardCharsets.UTF_8);
    this.truth = truth;
    this.prefixCache = prefixCache;
    this.modelsJson = modelsJson(profiles);
  }

  /** Handles one request on its event loop; {@code timer} is that loop's. */
  public void handle(HttpServerRequest request, LoopTimer timer) {
    String path = request.path();
    while (path.length() > 1 && path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    HttpMethod method = request.method();
    if (!servedBase(path)) {
      noRoute(
          request, method, path, path.endsWith("/messages") ? ApiShape.ANTHROPIC : ApiShape.OPENAI);
    } else if (path.endsWith("/chat/completions")) {
      requirePost(request, method, ApiShape.OPENAI, timer);
    } else if (path.endsWith("/messages")) {
      requirePost(request, method, ApiShape.ANTHROPIC, timer);
    } else if (path.endsWith("/models") && method == HttpMethod.GET) {
      if (authorized(request)) {
        json(request.response(), 200, modelsJson);
      } else {
        unauthorized(request, ApiShape.OPENAI);
      }
    } else if (path.equals("/metrics") && method == HttpMethod.GET) {
      request
          .response()
          .putHeader("Content-Type", EngineMetrics.CONTENT_TYPE)
          .end(truth.engineMetricsText());
    } else if (path.equals("/truth") && method == HttpMethod.GET) {
      json(request.response(), 200, truth.toJson());
    } else if (path.equals("/truth") && method == HttpMethod.DELETE) {
      truth.reset();
      request.response().setStatusCode(204).end();
    } else {
      noRoute(request, method, path, ApiShape.OPENAI);
    }
  }

  /** The API paths the simulator serves: their suffix after {@code /v1}, or after nothing. */
  private static final java.util.List<String> API_PATHS =
      java.util.List.of("/chat/completions", "/messages", "/models");

  /** Whether {@code path}, when it is an API path, has a base the simulator serves. */
  private static boolean servedBase(String path) {
    for (String api : API_PATHS) {
      if (path.endsWith(api)) {
        String base = path.substring(0, path.length() - api.length());
        return base.isEmpty() || base.endsWith("/v1");
      }
    }
    return true;
  }

  private static void noRoute(
      HttpServerRequest request, HttpMethod method, String path, ApiShape dialect) {
    error(
        request.response(),
        dialect,
        404,
        "no route for "
            + method
            + " "
            + path
            + ": the simulator serves POST .../v1/chat/completions, POST .../v1/messages, GET"
            + " .../v1/models (under any base that ends in /v1, or none), GET /metrics and GET"
            + " /truth",
        null);
  }

  private void requirePost(
      HttpServerRequest request, HttpMethod method, ApiShape dialect, LoopTimer timer) {
    if (method != HttpMethod.POST) {
      error(request.response(), dialect, 405, method + " is not allowed here: use POST", null);
      return;
    }
    request
        .body()
        .onSuccess(body -> chat(request, dialect, body, System.nanoTime(), timer))
        .onFailure(ignored -> request.connection().close());
  }

  private void chat(
      HttpServerRequest request, ApiShape dialect, Buffer body, long arrivalNs, LoopTimer timer) {
    HttpServerResponse response = request.response();
    JsonNode json;
    try {
      json = Json.MAPPER.readTree(body.getBytes());
    } catch (java.io.IOException e) {
      json = null;
    }
    if (json == null || !json.isObject()) {
      error(response, dialect, 400, "the request body is not a JSON object", null);
      return;
    }
    String model = ChatRequest.model(json);
    boolean knownModel = model != null && profiles.containsKey(model);
    if (!authorized(request)) {
      if (knownModel) {
        truth.refused(model, Outcome.HTTP_401);
      }
      unauthorized(request, dialect);
      return;
    }
    ChatRequest chat;
    try {
      chat = ChatRequest.parse(json);
    } catch (BadRequest e) {
      if (knownModel) {
        truth.refused(model, Outcome.HTTP_400);
      }
      error(response, dialect, 400, e.getMessage(), e.param());
      return;
    }
    if (!knownModel) {
      error(
          response,
          dialect,
          404,
          "The model '"
              + model
              + "' does not exist (this simulator serves: "
              + String.join(", ", listed(profiles))
              + ")",
          "model");
      return;
    }
    String requestId = request.getHeader(REQUEST_ID_HEADER);
    if (requestId == null || requestId.isBlank()) {
      requestId = "sim-" + unnamedRequests.incrementAndGet();
    }
    ModelProfile profile = profiles.get(model);
    ResponsePlan plan =
        Planner.plan(profile, runSeed, model, requestId, chat.maxTokens(), chat.promptTokens());
    RequestRecorder recorder =
        truth.begin(requestId, model, arrivalNs, !SimulatorPrimer.isWarmup(model));
    if (plan.fault() == Fault.NONE) {
      plan = prefill(plan, profile, json, model, chat);
      recorder.prompt(chat.promptTokens(), plan.cachedTokens());
      recorder.served(plan);
    }
    response.putHeader(REQUEST_ID_HEADER, requestId);
    if (plan.fault() == Fault.HTTP_429) {
      recorder.end(Outcome.HTTP_429);
      response.putHeader("Retry-After", Integer.toString(plan.retryAfterSeconds()));
      error(response, dialect, 429, "Rate limit reached for " + model + " (simulated)", null);
    } else if (plan.fault() == Fault.HTTP_500) {
      recorder.end(Outcome.HTTP_500);
      error(
          response,
          dialect,
          500,
          "The server had an error while processing your request (simulated)",
          null);
    } else if (chat.stream()) {
      long createdS = System.currentTimeMillis() / 1000;
      StreamFormat format =
          dialect == ApiShape.ANTHROPIC
              ? new AnthropicStreamFormat(plan, chat, requestId)
              : new OpenAiStreamFormat(
                  plan, chat, requestId, createdS, profile.perRequestMetrics());
      new StreamSession(timer, request, plan, format, recorder, profile.catchUp()).start(arrivalNs);
    } else {
      answerWhole(request, dialect, chat, plan, recorder, requestId, profile.perRequestMetrics());
    }
  }

  /**
   * The plan of a request the server takes on: its prompt's leading blocks looked up in the prefix
   * cache (the whole blocks it held are its cached tokens, never more than its prompt), and its
   * TTFT longer by the prefill of the tokens it did not hold.
   */
  private ResponsePlan prefill(
      ResponsePlan plan, ModelProfile profile, JsonNode body, String model, ChatRequest chat) {
    long uncached = chat.promptTokens();
    Integer cached = null;
    if (prefixCache != null) {
      int blockTokens = profile.prefixBlockTokens();
      long held =
          (long) prefixCache.lookUpAndKeep(ChatRequest.promptBlocks(body, model, blockTokens))
              * blockTokens;
      cached = (int) Math.min(uncached, held);
      uncached -= cached;
    }
    return plan.withPrompt(cached, profile.prefillNs(uncached));
  }

  /**
   * A non-streamed answer comes when the whole output would have been generated (and the gateway
   * has held it its delay); with {@code perRequestMetrics} an OpenAI body carries the engine's
   * view.
   */
  private void answerWhole(
      HttpServerRequest request,
      ApiShape dialect,
      ChatRequest chat,
      ResponsePlan plan,
      RequestRecorder recorder,
      String requestId,
      boolean perRequestMetrics) {
    long createdS = System.currentTimeMillis() / 1000;
    long delayMs = Math.max(1, TimeUnit.NANOSECONDS.toMillis(plan.totalWaitNs()));
    request.response().closeHandler(ignored -> recorder.end(Outcome.CLIENT_CLOSED));
    io.vertx.core.Vertx.currentContext()
        .owner()
        .setTimer(
            delayMs,
            ignored -> {
              if (request.response().closed()) {
                return;
              }
              if (plan.cutAfterChunks() != ResponsePlan.NONE) {
                recorder.end(Outcome.CUT);
                request.connection().close();
                return;
              }
              RequestMetrics engineView = RequestMetrics.planned(plan);
              recorder.answeredWhole(plan, engineView);
              recorder.end(Outcome.COMPLETED);
              json(
                  request.response(),
                  200,
                  dialect == ApiShape.ANTHROPIC
                      ? CompleteBodies.anthropic(plan, chat, requestId)
                      : CompleteBodies.openAi(
                          plan, chat, requestId, createdS, perRequestMetrics ? engineView : null));
            });
  }

  private boolean authorized(HttpServerRequest request) {
    if (apiKey == null) {
      return true;
    }
    String bearer = request.getHeader("Authorization");
    String xApiKey = request.getHeader("x-api-key");
    return (bearer != null
            && bearer.startsWith("Bearer ")
            && sameKey(bearer.substring("Bearer ".length()).trim()))
        || (xApiKey != null && sameKey(xApiKey.trim()));
  }

  private boolean sameKey(String given) {
    return MessageDigest.isEqual(apiKey, given.getBytes(StandardCharsets.UTF_8));
  }

  private static void unauthorized(HttpServerRequest request, ApiShape dialect) {
    error(
        request.response(),
        dialect,
        401,
        "Incorrect API key provided: send the simulator's key as 'Authorization: Bearer <key>'"
            + " or 'x-api-key: <key>'",
        null);
  }

  private static void error(
      HttpServerResponse response, ApiShape dialect, int status, String message, String param) {
    json(response, status, ErrorBodies.body(dialect, status, message, param));
  }

  private static void json(HttpServerResponse response, int status, String body) {
    response.setStatusCode(status).putHeader("Content-Type", "application/json").end(body);
  }

  /** The models a user asked for (the warm-up's are hidden). */
  private static java.util.List<String> listed(Map<String, ModelProfile> profiles) {
    return Profiles.names(profiles).stream()
        .filter(name -> !SimulatorPrimer.isWarmup(name))
        .toList();
  }

  private static String modelsJson(Map<String, ModelProfile> profiles) {
    var body = Json.MAPPER.createObjectNode().put("object", "list");
    var data = body.putArray("data");
    for (String model : listed(profiles)) {
      data.addObject()
          .put("id", model)
          .put("object", "model")
          .put("created", 0)
          .put("owned_by", "tpot-simulator");
    }
    return body.toString();
  }
}

package io.tpotstream.simulator.api;

import io.tpotstream.simulator.profile.Distribution;
import io.tpotstream.simulator.profile.ModelProfile;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.util.ArrayList;
import java.util.List;

/**
 * Streams chunks through the simulator's own HTTP path (both dialects) before its port opens, so
 * that the JIT has compiled the per-chunk code: a fresh JVM interprets it, and an interpreted write
 * costs hundreds of µs, all of it pacing error. The warm-up's gaps are short but not zero, so every
 * chunk goes through the path a real one takes: armed on the loop's timer, woken at its due
 * instant, written, recorded, the next one armed. A last, calm round (two streams per event loop, 1
 * ms apart) lets each loop's timer learn its lead at the pace of real streams rather than at the
 * warm-up's.
 */
public final class SimulatorPrimer {
  /** The hidden model the warm-up streams; it is not listed by {@code /v1/models}. */
  public static final String MODEL = "tpot-warmup";

  /** Its profile: a 0.05 ms TTFT, log-normal gaps of median 0.1 ms (at most 1 ms). */
  public static final ModelProfile PROFILE =
      ModelProfile.of(
          new Distribution.Constant(0.05), new Distribution.LogNormal(0.1, 0.5, 0.01, 1));

  /** The hidden model of the calm last round. */
  public static final String CALIBRATION_MODEL = "tpot-warmup-calm";

  /** Its profile: 1 ms TTFT, 1 ms gaps. */
  public static final ModelProfile CALIBRATION_PROFILE =
      ModelProfile.of(new Distribution.Constant(1), new Distribution.Constant(1));

  private static final int STREAMS = 16;
  private static final int MAX_TOKENS_PER_STREAM = 500;
  private static final int CALM_STREAMS_PER_LOOP = 2;
  private static final int CALM_TOKENS = 150;

  private SimulatorPrimer() {}

  /** True for the warm-up's own models, which no user sees. */
  public static boolean isWarmup(String model) {
    return MODEL.equals(model) || CALIBRATION_MODEL.equals(model);
  }

  /**
   * Streams about {@code chunks} chunks from the server at {@code port}, then the calm round over
   * its {@code eventLoops} loops; completes when all have arrived (failures are ignored: the
   * warm-up only speeds what follows).
   */
  public static Future<Void> run(Vertx vertx, String host, int port, int chunks, int eventLoops) {
    int calmStreams = CALM_STREAMS_PER_LOOP * eventLoops;
    HttpClientAgent client =
        vertx.createHttpClient(
            new HttpClientOptions().setDecompressionSupported(false),
            new PoolOptions().setHttp1MaxSize(Math.max(STREAMS, calmStreams)));
    int perStream = Math.max(1, Math.min(MAX_TOKENS_PER_STREAM, chunks / STREAMS));
    int rounds = Math.max(1, (int) Math.ceil(chunks / (double) (perStream * STREAMS)));
    Future<Void> all = Future.succeededFuture();
    for (int round = 0; round < rounds; round++) {
      int r = round;
      all = all.compose(ignored -> round(client, host, port, MODEL, STREAMS, perStream, r));
    }
    all =
        all.compose(
            ignored ->
                round(client, host, port, CALIBRATION_MODEL, calmStreams, CALM_TOKENS, rounds));
    return all.eventually(client::close);
  }

  private static Future<Void> round(
      HttpClientAgent client,
      String host,
      int port,
      String model,
      int streams,
      int tokens,
      int round) {
    List<Future<?>> all = new ArrayList<>();
    for (int i = 0; i < streams; i++) {
      boolean anthropic = i % 4 == 3;
      String body =
          "{\"model\":\""
              + model
              + "\",\"stream\":true,\"max_tokens\":"
              + tokens
              + ",\"stream_options\":{\"include_usage\":true,\"continuous_usage_stats\":"
              + (i % 2 == 0)
              + "}}";
      RequestOptions options =
          new RequestOptions()
              .setMethod(HttpMethod.POST)
              .setHost(host)
              .setPort(port)
              .setURI(anthropic ? "/v1/messages" : "/v1/chat/completions")
              .putHeader("Content-Type", "application/json")
              .putHeader("X-Request-Id", "warmup-" + round + "-" + i);
      all.add(
          client
              .request(options)
              .compose(request -> request.send(body))
              .compose(response -> response.body())
              .recover(ignored -> Future.succeededFuture()));
    }
    return Future.join(all).<Void>mapEmpty().recover(ignored -> Future.succeededFuture());
  }
}

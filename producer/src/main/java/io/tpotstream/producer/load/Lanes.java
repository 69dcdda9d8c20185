package io.tpotstream.producer.load;

import io.tpotstream.producer.publish.LoopLagMeter;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.internal.ContextInternal;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * The event loops requests are spread over, one lane per loop: its context, its own HTTP client (so
 * that every connection, and every chunk, stays on the loop that owns the request), and its
 * loop-lag meter.
 */
public final class Lanes {
  /** One event loop: where its requests run, the client they use, how late the loop runs. */
  public record Lane(Context context, HttpClientAgent client, LoopLagMeter lag) {}

  private final List<Lane> lanes;

  private Lanes(List<Lane> lanes) {
    this.lanes = List.copyOf(lanes);
  }

  /** Deploys {@code count} lanes, each with a client from {@code clients}. */
  public static Future<Lanes> deploy(Vertx vertx, int count, Supplier<HttpClientAgent> clients) {
    // clients first: making one takes an event-loop context, which would shift the round robin
    // that gives each lane its own loop
    java.util.Queue<HttpClientAgent> made = new java.util.concurrent.ConcurrentLinkedQueue<>();
    for (int i = 0; i < count; i++) {
      made.add(clients.get());
    }
    List<Lane> lanes = new CopyOnWriteArrayList<>();
    return vertx
        .deployVerticle(
            () -> new LaneVerticle(lanes, made::poll),
            new io.vertx.core.DeploymentOptions().setInstances(count))
        .map(id -> new Lanes(lanes));
  }

  /** The lane for request or worker number {@code index}. */
  public Lane lane(long index) {
    return lanes.get((int) (index % lanes.size()));
  }

  public int size() {
    return lanes.size();
  }

  /** The worst tick lateness over every loop since the last call, in µs. */
  public long takeLoopLagMicros() {
    long max = 0;
    for (Lane lane : lanes) {
      max = Math.max(max, lane.lag().takeMaxMicros());
    }
    return max;
  }

  /** The worst tick lateness over every loop since start, in µs. */
  public long maxLoopLagMicros() {
    long max = 0;
    for (Lane lane : lanes) {
      max = Math.max(max, lane.lag().maxEverMicros());
    }
    return max;
  }

  /** Stops the meters and closes the clients. */
  public void close() {
    for (Lane lane : lanes) {
      lane.lag().stop();
      lane.client().close();
    }
  }

  private static final class LaneVerticle extends VerticleBase {
    private final List<Lane> lanes;
    private final Supplier<HttpClientAgent> clients;

    LaneVerticle(List<Lane> lanes, Supplier<HttpClientAgent> clients) {
      this.lanes = lanes;
      this.clients = clients;
    }

    @Override
    public Future<?> start() {
      LoopLagMeter lag =
          LoopLagMeter.start(((ContextInternal) context).nettyEventLoop(), LoopLagMeter.TICK_NS);
      lanes.add(new Lane(context, clients.get(), lag));
      return Future.succeededFuture();
    }
  }
}

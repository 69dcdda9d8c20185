package io.tpotstream.producer.load;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Event-loop contexts to spread requests over: one per deployed instance of a tiny verticle, so
 * that streams share all event loops instead of the one a caller thread sticks to.
 */
public final class Lanes {
  private final List<Context> contexts;

  private Lanes(List<Context> contexts) {
    this.contexts = List.copyOf(contexts);
  }

  /** Deploys {@code count} lanes. */
  public static Future<Lanes> deploy(Vertx vertx, int count) {
    List<Context> contexts = new CopyOnWriteArrayList<>();
    return vertx
        .deployVerticle(
            () -> new Lane(contexts), new io.vertx.core.DeploymentOptions().setInstances(count))
        .map(id -> new Lanes(contexts));
  }

  /** The lane for request or worker number {@code index}. */
  public Context lane(long index) {
    return contexts.get((int) (index % contexts.size()));
  }

  public int size() {
    return contexts.size();
  }

  private static final class Lane extends VerticleBase {
    private final List<Context> contexts;

    Lane(List<Context> contexts) {
      this.contexts = contexts;
    }

    @Override
    public Future<?> start() {
      contexts.add(context);
      return Future.succeededFuture();
    }
  }
}

package io.tpotstream.proxy.http;

import io.tpotstream.proxy.measure.Route;
import io.vertx.core.http.HttpServerRequest;

/** Decides, when a request is forwarded, whether and how its exchange is measured. */
@FunctionalInterface
public interface ObserverFactory {
  /**
   * An observer for the exchange of {@code request} (its headers are readable; its body is not yet
   * read), forwarded at {@code startNs} (System.nanoTime()); {@link ExchangeObserver#NONE} to leave
   * it unmeasured.
   */
  ExchangeObserver begin(HttpServerRequest request, Route route, long startNs);

  /** Measures nothing. */
  ObserverFactory NONE = (request, route, startNs) -> ExchangeObserver.NONE;
}

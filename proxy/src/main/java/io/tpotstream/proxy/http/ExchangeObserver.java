package io.tpotstream.proxy.http;

import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;

/**
 * What the forwarding code tells a measurement about one exchange, on the exchange's event loop,
 * after the bytes concerned were already forwarded. Never blocks; never changes the traffic.
 */
public interface ExchangeObserver {
  /** A piece of the request body, as forwarded upstream. */
  default void requestBody(Buffer chunk) {}

  /** The request body is complete (forwarded in full). */
  default void requestEnd() {}

  /** The upstream's status and headers arrived (and were forwarded). */
  default void response(int status, MultiMap headers) {}

  /**
   * A piece of the response body, from the upstream connection's read number {@code read} that
   * returned at {@code arrivalNs} (System.nanoTime()); pieces of one read share both.
   */
  default void chunk(Buffer chunk, long arrivalNs, long read) {}

  /**
   * The upstream was not read from {@code fromNs} to {@code toNs} (System.nanoTime()) because the
   * client was slow to take what was forwarded: chunks that arrived meanwhile are read late.
   */
  default void heldBack(long fromNs, long toNs) {}

  /** The response ended as the upstream ended it. */
  default void end(long atNs) {}

  /**
   * The exchange failed before the response ended.
   *
   * @param failure what went wrong
   * @param atNs when (System.nanoTime())
   */
  default void failed(Failure failure, long atNs) {}

  /** Why an exchange ended early. */
  enum Failure {
    /** No connection to the upstream (refused, DNS, TLS). */
    CONNECT,
    /** No connection to the upstream within the connect timeout. */
    CONNECT_TIMEOUT,
    /**
     * Every upstream connection of the proxy's event loop stayed busy for the connect timeout: the
     * request waited in the proxy's own queue and never reached the upstream.
     */
    QUEUE_TIMEOUT,
    /** The upstream was silent for the idle timeout before its response headers. */
    RESPONSE_TIMEOUT,
    /** The upstream was silent for the idle timeout in the middle of a response. */
    IDLE_TIMEOUT,
    /** The upstream connection broke (reset, closed) before the response ended. */
    UPSTREAM_BROKE,
    /** The client went away (closed its connection) before the response ended. */
    CLIENT_GONE,
    /** The proxy stopped with the exchange still in flight. */
    STOPPED
  }

  /** Observes nothing: the exchange is only forwarded. */
  ExchangeObserver NONE = new ExchangeObserver() {};
}

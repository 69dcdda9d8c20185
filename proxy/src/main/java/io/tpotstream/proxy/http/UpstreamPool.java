package io.tpotstream.proxy.http;

/**
 * How many of one event loop's pooled upstream connections its exchanges hold now, against the
 * pool's size ({@code --max-connections}): a request that finds them all held waits in the pool's
 * queue, the proxy's own, and a timeout there is the proxy's, not the upstream's. Used on the
 * loop's thread only.
 */
final class UpstreamPool {
  private final int maxConnections;
  private int held;

  UpstreamPool(int maxConnections) {
    this.maxConnections = maxConnections;
  }

  int maxConnections() {
    return maxConnections;
  }

  /** True when every connection the pool may open is held by an exchange. */
  boolean full() {
    return held >= maxConnections;
  }

  void acquired() {
    held++;
  }

  void released() {
    held--;
  }
}

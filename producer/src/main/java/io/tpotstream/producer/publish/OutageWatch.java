package io.tpotstream.producer.publish;

import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka outage, as the publisher lives through it: it begins when Kafka has taken nothing for 2 s
 * while events wait, is reported every 10 s, and ends when Kafka takes events again; then the held
 * events go out in order until the publisher has caught up. Publisher thread only ({@link
 * #inOutage} may be read anywhere).
 */
final class OutageWatch {
  private static final Logger LOG = LoggerFactory.getLogger(Publisher.class);
  private static final long AFTER_NS = TimeUnit.SECONDS.toNanos(2);
  private static final long REPORT_NS = TimeUnit.SECONDS.toNanos(10);

  private final String bootstrapServers;
  private final OutageBuffer held;
  private final long deliveryTimeoutNs;
  private final OutagePolicy policy;
  private long sinceNs;
  private volatile boolean inOutage;
  private long lastReportNs;
  private boolean caughtUpPending;
  private long count;
  private long longestNs;

  OutageWatch(
      String bootstrapServers, OutageBuffer held, long deliveryTimeoutNs, OutagePolicy policy) {
    this.bootstrapServers = bootstrapServers;
    this.held = held;
    this.deliveryTimeoutNs = deliveryTimeoutNs;
    this.policy = policy;
  }

  boolean active() {
    return sinceNs != 0;
  }

  boolean inOutage() {
    return inOutage;
  }

  long count() {
    return count;
  }

  long longestNs() {
    return longestNs;
  }

  /** How long the outage under way has lasted at {@code now}. */
  long lastingNs(long now) {
    return sinceNs == 0 ? 0 : now - sinceNs;
  }

  /**
   * Notes where things stand at {@code now} (Kafka's last progress, the records not yet
   * acknowledged, the events among them) and says on the console when an outage begins, goes on,
   * ends and is caught up. True when the outage under way has lasted past delivery.timeout.ms.
   */
  boolean tooLong(long now, long lastProgressNs, long outstanding, long unacked) {
    boolean waiting = !held.isEmpty() || outstanding > 0;
    long stalledNs = waiting ? now - lastProgressNs : 0;
    if (sinceNs == 0) {
      if (stalledNs >= AFTER_NS) {
        sinceNs = lastProgressNs;
        inOutage = true;
        lastReportNs = now;
        count++;
        LOG.warn(
            String.format(
                Locale.ROOT,
                "Kafka at %s has taken nothing for %.1f s (broker down or unreachable?):"
                    + " holding events in the outage buffer while the measurement goes on (%,d"
                    + " held, room for %,d); %s",
                bootstrapServers,
                stalledNs / 1e9,
                held.size(),
                held.capacity(),
                policy.whenFull(deliveryTimeoutNs)));
      }
      if (caughtUpPending && held.size() < 1000 && outstanding < 1000) {
        caughtUpPending = false;
        LOG.warn( // ends the outage's warning, so shown where that one is (--quiet too)
            String.format(
                Locale.ROOT,
                "caught up after the outage: every held event was handed to Kafka in order (at"
                    + " most %,d held)",
                held.maxSize()));
      }
      return false;
    }
    long outageNs = now - sinceNs;
    if (lastProgressNs > sinceNs && stalledNs < AFTER_NS) {
      longestNs = Math.max(longestNs, lastProgressNs - sinceNs);
      LOG.warn( // ends the outage's warning, so shown where that one is (--quiet too)
          String.format(
              Locale.ROOT,
              "Kafka is back after %.1f s: the held events go out in order (%,d still held, %,d"
                  + " sent and not yet acknowledged)",
              (lastProgressNs - sinceNs) / 1e9,
              held.size(),
              unacked));
      sinceNs = 0;
      inOutage = false;
      caughtUpPending = true;
      return false;
    }
    longestNs = Math.max(longestNs, outageNs);
    if (outageNs >= deliveryTimeoutNs && policy.stopsOnLongOutage()) {
      return true;
    }
    if (now - lastReportNs >= REPORT_NS) {
      lastReportNs = now;
      LOG.warn(
          String.format(
              Locale.ROOT,
              "Kafka still unreachable after %.0f s: %,d events held (%.1f%% of the outage"
                  + " buffer), %,d sent and not acknowledged",
              outageNs / 1e9,
              held.size(),
              100.0 * held.size() / held.capacity(),
              unacked));
    }
    return false;
  }
}

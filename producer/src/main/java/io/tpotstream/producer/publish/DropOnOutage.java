package io.tpotstream.producer.publish;

import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/** {@link OutagePolicy#drop()}: the proxy's. */
final class DropOnOutage extends OutagePolicy {
  private static final Logger LOG = LoggerFactory.getLogger(Publisher.class);
  private static final long CONNECT_RETRY_NS = TimeUnit.SECONDS.toNanos(5);
  private static final long DROP_REPORT_NS = TimeUnit.SECONDS.toNanos(60);

  // reaching Kafka in the background (publisher thread; connected is read anywhere)
  private volatile boolean connected;
  private CompletableFuture<Integer> connecting;
  private long nextConnectNs;
  private long lastDropReportNs;

  /** Starts the publisher thread at once; Kafka is reached in the background. */
  @Override
  Publisher open(KafkaSettings settings, Publisher.Wiring wiring) {
    Publisher publisher = new Publisher(settings, wiring, this, List.of());
    publisher.start();
    return publisher;
  }

  @Override
  boolean connected() {
    return connected;
  }

  /** Asks for the topic in the background, every 5 s until Kafka answers. */
  @Override
  void connect(long nowNs) {
    if (connecting == null) {
      if (nowNs >= nextConnectNs) {
        KafkaSettings settings = publisher().settings;
        connecting =
            CompletableFuture.supplyAsync(
                () -> PublishTopic.ensureTopic(settings), DropOnOutage::daemon);
      }
      return;
    }
    if (!connecting.isDone()) {
      return;
    }
    try {
      reached(connecting.join(), nowNs);
    } catch (RuntimeException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      if (nextConnectNs == 0) {
        LOG.warn(
            "{}; holding the events meanwhile (then dropping them, counted) and trying again"
                + " every {} s",
            cause.getMessage(),
            TimeUnit.NANOSECONDS.toSeconds(CONNECT_RETRY_NS));
      }
      nextConnectNs = nowNs + CONNECT_RETRY_NS;
    } finally {
      connecting = null;
    }
  }

  private void reached(int partitionCount, long nowNs) {
    Publisher p = publisher();
    p.sender.reached(PublishTopic.partitionList(partitionCount), nowNs);
    connected = true;
    // after a failed attempt (a WARN), a WARN too: --quiet shows warnings, and this one ends it
    LOG.atLevel(nextConnectNs == 0 ? Level.INFO : Level.WARN)
        .log(
            "reached Kafka at {}: publishing to {} ({} partitions){}",
            p.settings.bootstrapServers(),
            p.settings.topic(),
            partitionCount,
            p.buffer.isEmpty() ? "" : ", the " + p.buffer.size() + " events held first");
  }

  private static void daemon(Runnable task) {
    Thread t = new Thread(task, "tpot-publisher-connect");
    t.setDaemon(true);
    t.start();
  }

  @Override
  void handoffFull(long lost) {
    countDropped(1);
    reportDrops("the hand-off from the event loops is full (the publisher fell behind)");
  }

  @Override
  boolean skips(MeasuredRequest request) {
    if (request.warmup) {
      return true; // a proxy's priming: measured to warm the path, never published
    }
    if (request.dropped) {
      countDropped(1);
      return true;
    }
    return false;
  }

  /** {@code request} and the rest of its events go (a heartbeat that finds no room is skipped). */
  @Override
  void full(MeasuredRequest request, TokenEvent event) {
    if (event != null && event.type() == EventType.HEARTBEAT) {
      return;
    }
    if (request != null) {
      request.dropped = true;
    }
    countDropped(1);
    Publisher p = publisher();
    reportDrops(
        String.format(
            Locale.ROOT,
            "the outage buffer is full (%,d events held for Kafka at %s)",
            p.buffer.size(),
            p.settings.bootstrapServers()));
  }

  @Override
  String whenFull(long deliveryTimeoutNs) {
    return "when it is full, events are dropped and counted";
  }

  @Override
  boolean stopsOnLongOutage() {
    return false;
  }

  @Override
  boolean lost(Exception error, boolean event) {
    if (event) {
      countDropped(1);
      reportDrops("Kafka did not take an event (" + error.getClass().getSimpleName() + ")");
    }
    return true;
  }

  @Override
  TokenEvent stamp(TokenEvent heartbeat) {
    return heartbeat.withDroppedEvents(dropped());
  }

  @Override
  long giveUpAt(long endNs) {
    return endNs + publisher().settings.setupTimeout().toNanos();
  }

  @Override
  boolean abandons() {
    Publisher p = publisher();
    if (!away() && p.buffer.isEmpty()) {
      return false;
    }
    // Kafka is away: no final heartbeat can go, and a flush would wait for it
    countDropped(p.buffer.dropAll() + p.sender.unacked());
    LOG.warn(
        "stopping while Kafka at {} is unreachable: {} events dropped in all; no final"
            + " heartbeat sent",
        p.settings.bootstrapServers(),
        dropped());
    return true;
  }

  @Override
  void unacknowledgedAtEnd(long unacked) {
    if (unacked > 0) {
      countDropped(unacked);
    }
  }

  @Override
  boolean away() {
    return !connected || publisher().outage.active();
  }

  /** Says, at most once a minute, that events are being dropped and how many so far. */
  private void reportDrops(String why) {
    long now = System.nanoTime();
    if (lastDropReportNs == 0 || now - lastDropReportNs >= DROP_REPORT_NS) {
      lastDropReportNs = now;
      LOG.warn(
          "{}: dropping token events ({} so far); the traffic is not affected", why, dropped());
    }
  }
}

package io.tpotstream.proxy.events;

import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.producer.publish.AnchoredClock;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.producer.publish.PauseMeter;
import io.tpotstream.producer.publish.PublishException;
import io.tpotstream.producer.publish.Publisher;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy's events to Kafka through the producer's {@link Publisher} (same topic, same heartbeats
 * and watermarks, its own producer id). The proxy starts and serves whether Kafka is up or not: a
 * background thread connects, and connects again after a failure; meanwhile, and whenever the
 * publisher's queue is half full, events are dropped and counted instead of waiting.
 */
public final class KafkaEventSink implements EventSink {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaEventSink.class);
  private static final long RETRY_MS = 5_000;
  private static final long CLOSE_TIMEOUT_S = 30;

  private final KafkaSettings settings;
  private final String runId;
  private final String producerId;
  private final AnchoredClock clock;
  private final PauseMeter pauseMeter;
  private final AtomicLong published = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
  private final Thread connector;
  private final Object lock = new Object();
  private volatile Publisher publisher;
  private volatile boolean closing;

  private KafkaEventSink(
      KafkaSettings settings, String runId, String producerId, AnchoredClock clock) {
    this.settings = settings;
    this.runId = runId;
    this.producerId = producerId;
    this.clock = clock;
    this.pauseMeter = PauseMeter.start();
    this.connector = new Thread(this::connectLoop, "tpot-proxy-kafka");
    this.connector.setDaemon(true);
  }

  /** Starts connecting in the background; returns at once. */
  public static KafkaEventSink start(
      KafkaSettings settings, String runId, String producerId, AnchoredClock clock) {
    KafkaEventSink sink = new KafkaEventSink(settings, runId, producerId, clock);
    sink.connector.start();
    return sink;
  }

  /** True once connected (and not failed since). */
  public boolean connected() {
    Publisher p = publisher;
    return p != null && p.failure().isEmpty();
  }

  @Override
  public void publish(TokenEvent event) {
    Publisher p = publisher;
    if (p == null || p.failure().isPresent() || p.atRisk() >= settings.queueCapacity() / 2) {
      dropped.incrementAndGet();
      return;
    }
    p.publish(event);
    published.incrementAndGet();
  }

  @Override
  public long published() {
    return published.get();
  }

  @Override
  public long dropped() {
    return dropped.get();
  }

  @Override
  public void close() {
    closing = true;
    synchronized (lock) {
      lock.notifyAll();
    }
    try {
      connector.join(
          TimeUnit.SECONDS.toMillis(CLOSE_TIMEOUT_S + settings.setupTimeout().toSeconds()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    pauseMeter.close();
  }

  private void connectLoop() {
    boolean saidDown = false;
    while (!closing) {
      Publisher p;
      try {
        p = Publisher.open(settings, runId, producerId, clock, pauseMeter);
      } catch (PublishException e) {
        if (!saidDown) {
          LOG.warn(
              "{}; the proxy keeps forwarding and drops token events ({} so far) until Kafka is"
                  + " back (next try in {} s)",
              e.getMessage(),
              dropped.get(),
              RETRY_MS / 1000);
          saidDown = true;
        }
        pause(RETRY_MS);
        continue;
      }
      p.onFailure(
          e -> {
            synchronized (lock) {
              lock.notifyAll();
            }
          });
      publisher = p;
      LOG.info(
          "publishing token events to {} at {} as producer {}{}",
          settings.topic(),
          settings.bootstrapServers(),
          producerId,
          saidDown ? " (Kafka is back; " + dropped.get() + " events dropped meanwhile)" : "");
      saidDown = false;
      synchronized (lock) {
        while (!closing && p.failure().isEmpty()) {
          try {
            lock.wait(1000);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
          }
        }
      }
      publisher = null;
      try {
        p.finish().get(CLOSE_TIMEOUT_S, TimeUnit.SECONDS);
      } catch (Exception e) {
        // a failed publisher closes itself; its failure was logged
      }
      if (!closing) {
        saidDown = true;
        LOG.warn(
            "Kafka failed under the proxy; it keeps forwarding and drops token events until"
                + " Kafka is back (next try in {} s)",
            RETRY_MS / 1000);
        pause(RETRY_MS);
      }
    }
  }

  private void pause(long ms) {
    synchronized (lock) {
      if (!closing) {
        try {
          lock.wait(ms);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }
}

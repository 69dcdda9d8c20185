package io.tpotstream.proxy.events;

import io.tpotstream.common.secret.Secrets;
import io.tpotstream.producer.publish.AnchoredClock;
import io.tpotstream.producer.publish.Handoff;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.producer.publish.LoopLagMeter;
import io.tpotstream.producer.publish.OutagePolicy;
import io.tpotstream.producer.publish.PauseMeter;
import io.tpotstream.producer.publish.PublishException;
import io.tpotstream.producer.publish.Publisher;
import io.tpotstream.producer.publish.Recorder;
import java.time.Duration;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy's publishing, made of the producer's parts: the {@link Handoff} the event loops write
 * SSE events to, the {@link Recorder} that reads them on the publisher thread (with {@code source:
 * proxy} and each request's own labels), and a {@link Publisher} under {@link OutagePolicy#drop()}
 * (heartbeats, watermarks, outage buffer; it serves before Kafka is reachable and drops, counting,
 * rather than waits).
 */
public final class ProxyEvents implements AutoCloseable {
  /** The {@code source} of every event the proxy writes. */
  public static final String SOURCE = "proxy";

  private static final Logger LOG = LoggerFactory.getLogger(ProxyEvents.class);
  private static final long CLOSE_TIMEOUT_S = 60;
  // the proxy judges its timeouts on the event loop: the recorder is never asked about these
  private static final Duration NOT_JUDGED = Duration.ofDays(1);

  private final String producerId;
  private final Handoff handoff;
  private final Publisher publisher;
  private final PauseMeter pauseMeter;
  private final List<LoopLagMeter> loops = new CopyOnWriteArrayList<>();

  private ProxyEvents(
      KafkaSettings settings,
      String runId,
      String producerId,
      AnchoredClock clock,
      String upstreamUrl) {
    this.producerId = producerId;
    pauseMeter = PauseMeter.start();
    handoff = new Handoff(settings.queueCapacity());
    Recorder recorder =
        new Recorder(
            runId,
            producerId,
            SOURCE,
            new TreeMap<>(),
            clock,
            NOT_JUDGED,
            NOT_JUDGED,
            upstreamUrl,
            message -> Secrets.NONE.redact(withoutQuotes(message)),
            outcome -> {});
    publisher =
        Publisher.open(
            settings,
            new Publisher.Wiring(
                runId, producerId, clock, pauseMeter, this::takeLoopLagMicros, handoff, recorder),
            OutagePolicy.drop());
  }

  /** Starts publishing (reaching Kafka in the background); returns at once. */
  public static ProxyEvents start(
      KafkaSettings settings,
      String runId,
      String producerId,
      AnchoredClock clock,
      String upstreamUrl) {
    return new ProxyEvents(settings, runId, producerId, clock, upstreamUrl);
  }

  /** The producer id of every event the proxy writes. */
  public String producerId() {
    return producerId;
  }

  /** Where the event loops hand their measured requests' events. */
  public Handoff handoff() {
    return handoff;
  }

  /**
   * Called once, from the publisher thread, when publishing stopped for good (an {@code Error} such
   * as an {@code OutOfMemoryError}, or a bug, on that thread): from then on the proxy would forward
   * without measuring, so whoever runs it must stop it. Never called for Kafka's outages, which the
   * proxy rides out.
   */
  public void onFailure(Consumer<PublishException> handler) {
    publisher.onFailure(handler);
  }

  /** Publishes {@code event} in order with the traffic's events and the heartbeats. */
  public void publish(io.tpotstream.common.event.TokenEvent event) {
    publisher.publish(event);
  }

  /** Adds an event loop's lag meter to the heartbeats' {@code loopLagMaxUs}. */
  public void watch(LoopLagMeter loop) {
    loops.add(loop);
  }

  /** True once Kafka was reached. */
  public boolean connected() {
    return publisher.connected();
  }

  /** Token events Kafka acknowledged. */
  public long published() {
    return publisher.acknowledged();
  }

  /** Token events dropped because Kafka was slow or down. */
  public long dropped() {
    return publisher.dropped();
  }

  /** Token events held for Kafka now (the outage buffer). */
  public long held() {
    return publisher.held();
  }

  /**
   * Sends what is held (waiting at most the setup timeout for Kafka), then the final heartbeat to
   * every partition, and closes.
   */
  @Override
  public void close() {
    try {
      publisher.finish().get(CLOSE_TIMEOUT_S, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warn("closing the publisher: {}", e.getMessage());
    } finally {
      loops.forEach(LoopLagMeter::stop);
      pauseMeter.close();
    }
  }

  private long takeLoopLagMicros() {
    long max = 0;
    for (LoopLagMeter loop : loops) {
      max = Math.max(max, loop.takeMaxMicros());
    }
    return max;
  }

  /**
   * A dialect's message without what it quotes from the stream ("error in the stream: …" becomes
   * "error in the stream"): the proxy's events never carry the traffic's text.
   */
  static String withoutQuotes(String message) {
    int colon = message.indexOf(": ");
    return colon < 0 ? message : message.substring(0, colon);
  }
}

package io.tpotstream.producer.publish;

import io.tpotstream.common.event.TokenEvent;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/** {@link OutagePolicy#stop()}: the producer's. */
final class StopOnOutage extends OutagePolicy {

  /**
   * Creates the topic if it is missing, connects, sends the start heartbeat to every partition (and
   * waits until Kafka acknowledged them), then starts the publisher thread.
   *
   * @throws PublishException when Kafka cannot be reached within the setup timeout
   */
  @Override
  Publisher open(KafkaSettings settings, Publisher.Wiring wiring) {
    List<Integer> partitions = PublishTopic.partitionList(PublishTopic.ensureTopic(settings));
    Publisher publisher = new Publisher(settings, wiring, this, partitions);
    try {
      publisher.sendStartHeartbeats();
    } catch (RuntimeException e) {
      publisher.sender.close(Duration.ZERO);
      if (e instanceof PublishException p) {
        throw p;
      }
      throw new PublishException(PublishTopic.unreachable(settings, e), e);
    }
    publisher.start();
    return publisher;
  }

  @Override
  boolean connected() {
    return true;
  }

  @Override
  void connect(long nowNs) {}

  @Override
  void handoffFull(long lost) {
    Publisher p = publisher();
    p.fail(
        new PublishException(
            "the publisher thread fell behind: the hand-off from the event loops is full ("
                + p.handoff.capacity()
                + " entries waiting); "
                + (p.atRisk() + lost)
                + " events at risk; the run stopped. The machine is too busy for this"
                + " load: lower the concurrency or give the producer more CPU",
            null));
  }

  @Override
  boolean skips(MeasuredRequest request) {
    return false;
  }

  @Override
  void full(MeasuredRequest request, TokenEvent event) {
    Publisher p = publisher();
    p.fail(
        new PublishException(
            String.format(
                Locale.ROOT,
                "the outage buffer is full (%,d events held): Kafka at %s has taken nothing for"
                    + " %.1f s; %,d events at risk; the run stopped. Check the brokers, or hold"
                    + " more with --outage-buffer",
                p.buffer.size(),
                p.settings.bootstrapServers(),
                (System.nanoTime() - p.sender.lastProgressNs()) / 1e9,
                p.atRisk() + 1),
            null));
  }

  @Override
  String whenFull(long deliveryTimeoutNs) {
    return String.format(
        Locale.ROOT,
        "the run stops if the buffer fills or the outage passes delivery.timeout.ms (%d s)",
        TimeUnit.NANOSECONDS.toSeconds(deliveryTimeoutNs));
  }

  @Override
  boolean stopsOnLongOutage() {
    return true;
  }

  @Override
  boolean lost(Exception error, boolean event) {
    publisher().fail(publisher().kafkaFailed(error));
    return false;
  }

  @Override
  TokenEvent stamp(TokenEvent heartbeat) {
    return heartbeat;
  }

  @Override
  long giveUpAt(long endNs) {
    return Long.MAX_VALUE; // waits for Kafka as long as the outage watch allows
  }

  @Override
  boolean abandons() {
    return false;
  }

  @Override
  void unacknowledgedAtEnd(long unacked) {
    if (unacked > 0) {
      publisher()
          .fail(
              new PublishException(
                  "Kafka did not acknowledge "
                      + unacked
                      + " events by the end of the run; check the brokers at "
                      + publisher().settings.bootstrapServers(),
                  null));
    }
  }

  @Override
  boolean away() {
    return false;
  }
}

package io.tpotstream.producer.publish;

import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The publisher's Kafka client: hands the head of the FIFO to Kafka (a token event encoded with its
 * request's template, a heartbeat to every partition in turn) and counts what was sent and what was
 * acknowledged. The client never blocks ({@code max.block.ms=0}): a send that finds no metadata or
 * no buffer space is refused at once, during the send and on this thread, and the event stays held.
 * A record the client refuses as too large is skipped and counted dropped; any other refusal, and
 * any record Kafka does not take in the end, is the {@link OutagePolicy}'s call. Sends on the
 * publisher thread; acknowledgements arrive on the client's.
 */
final class KafkaSender {
  private static final Logger LOG = LoggerFactory.getLogger(Publisher.class);

  private final String topic;
  private final byte[] producerKey;
  private final OutagePolicy policy;
  private final Function<Throwable, PublishException> kafkaFailed;
  private final KafkaProducer<byte[], byte[]> kafka;
  private volatile List<Integer> partitions;
  private final AtomicLong sentEvents = new AtomicLong();
  private final AtomicLong ackedEvents = new AtomicLong();
  private final AtomicLong sentRecords = new AtomicLong();
  private final AtomicLong ackedRecords = new AtomicLong();
  private final AtomicLong heartbeats = new AtomicLong();
  private volatile long lastProgressNs = System.nanoTime();
  private int heartbeatPartitionsDone;

  // a send refused synchronously (no metadata, no buffer space) lands here, on this thread
  private volatile Thread sendingOn;
  private Exception refused;

  /** The last {@link #send} skipped its record (counted as dropped, never acknowledged). */
  private boolean skipped;

  private final Callback eventAck = this::onEventAck;
  private final Callback heartbeatAck = this::onHeartbeatAck;

  /**
   * Opens the Kafka client; {@code kafkaFailed} words a refusal that stops publishing. Construct it
   * last, so that nothing after it can fail and leave the client open.
   */
  KafkaSender(
      Properties props,
      String topic,
      String producerId,
      List<Integer> partitions,
      OutagePolicy policy,
      Function<Throwable, PublishException> kafkaFailed) {
    this.topic = topic;
    this.producerKey = producerId.getBytes(StandardCharsets.UTF_8);
    this.partitions = partitions;
    this.policy = policy;
    this.kafkaFailed = kafkaFailed;
    this.kafka = new KafkaProducer<>(props);
  }

  /** Partitions of the topic, in order (none until Kafka was reached). */
  List<Integer> partitions() {
    return partitions;
  }

  /** Kafka was reached: the topic has these partitions, and now counts as progress. */
  void reached(List<Integer> partitions, long nowNs) {
    this.partitions = partitions;
    this.lastProgressNs = nowNs;
  }

  /** When Kafka last took something (or the wait for it began), in {@code System.nanoTime}. */
  long lastProgressNs() {
    return lastProgressNs;
  }

  /** Events handed to Kafka, acknowledged or not. */
  long sentEvents() {
    return sentEvents.get();
  }

  /** Events (not heartbeats) Kafka acknowledged, or, for a dropping policy, gave up on. */
  long ackedEvents() {
    return ackedEvents.get();
  }

  /** Events sent and not yet acknowledged. */
  long unacked() {
    return Math.max(0, sentEvents.get() - ackedEvents.get());
  }

  /** Records (events and heartbeats) sent and not yet acknowledged. */
  long outstanding() {
    return sentRecords.get() - ackedRecords.get();
  }

  /** Heartbeat records sent (one per partition per heartbeat). */
  long heartbeats() {
    return heartbeats.get();
  }

  void flush() {
    kafka.flush();
  }

  void close(Duration timeout) {
    kafka.close(timeout);
  }

  /** Sends the FIFO's head; false when Kafka refused it for now (it stays held). */
  boolean sendHead(HeldEvents held) {
    if (held.headIsToken()) {
      MeasuredRequest r = held.headRequest();
      long ts = held.headTs();
      byte[] value =
          r.template.encode(
              ts,
              held.headElapsedNs(),
              held.headSeq(),
              held.headTokens(),
              held.headKind(),
              held.headCoalesced(),
              held.headLagUs());
      return sendEvent(new ProducerRecord<>(topic, null, ts, r.key, value));
    }
    TokenEvent e = held.headEvent();
    if (e.type() == EventType.HEARTBEAT) {
      return sendHeartbeat(e);
    }
    // an engine event belongs to no request: keyed by its producer, a producer's stay in order
    byte[] key =
        e.type() == EventType.ENGINE ? producerKey : e.requestId().getBytes(StandardCharsets.UTF_8);
    return sendEvent(new ProducerRecord<>(topic, null, e.ts(), key, TokenEventCodec.encode(e)));
  }

  private boolean sendEvent(ProducerRecord<byte[], byte[]> record) {
    if (!send(record, eventAck)) {
      return false;
    }
    if (!skipped) {
      sentEvents.incrementAndGet();
    }
    return true;
  }

  /** A heartbeat goes to every partition; refused midway, it resumes with the next partition. */
  private boolean sendHeartbeat(TokenEvent e) {
    byte[] value = TokenEventCodec.encode(e);
    while (heartbeatPartitionsDone < partitions.size()) {
      int partition = partitions.get(heartbeatPartitionsDone);
      if (!send(new ProducerRecord<>(topic, partition, e.ts(), producerKey, value), heartbeatAck)) {
        return false;
      }
      heartbeats.incrementAndGet();
      heartbeatPartitionsDone++;
    }
    heartbeatPartitionsDone = 0;
    return true;
  }

  /**
   * One {@code KafkaProducer.send}; false when the client refused it at once for want of metadata
   * or buffer space (it then calls back on this thread, during the send, with a TimeoutException).
   * A record the client refuses for itself (too large: a client sent a huge model name through the
   * proxy) is counted as dropped and skipped ({@link #skipped}): one record never stops publishing.
   */
  private boolean send(ProducerRecord<byte[], byte[]> record, Callback ack) {
    boolean wasIdle = outstanding() == 0;
    refused = null;
    skipped = false;
    sendingOn = Thread.currentThread();
    try {
      kafka.send(record, ack);
    } finally {
      sendingOn = null;
    }
    if (refused == null) {
      if (wasIdle) {
        // nothing was waiting for Kafka until now: the wait for an acknowledgement starts here
        lastProgressNs = System.nanoTime();
      }
      sentRecords.incrementAndGet();
      return true;
    }
    if (refused instanceof TimeoutException) {
      return false;
    }
    if (refused instanceof RecordTooLargeException) {
      skipped = true;
      LOG.warn(
          "Kafka refused one event of {} bytes ({}): skipped and counted as dropped ({} so far);"
              + " the other events go on",
          record.value().length,
          refused.getMessage(),
          policy.countDropped(1));
      return true;
    }
    throw kafkaFailed.apply(refused);
  }

  private boolean refusedNow(Exception error) {
    if (Thread.currentThread() == sendingOn) {
      refused = error;
      return true;
    }
    return false;
  }

  private void onEventAck(RecordMetadata metadata, Exception error) {
    if (error != null && (refusedNow(error) || !policy.lost(error, true))) {
      return;
    }
    ackedEvents.incrementAndGet();
    ackedRecords.incrementAndGet();
    if (error == null) {
      lastProgressNs = System.nanoTime();
    }
  }

  private void onHeartbeatAck(RecordMetadata metadata, Exception error) {
    if (error != null && (refusedNow(error) || !policy.lost(error, false))) {
      return;
    }
    ackedRecords.incrementAndGet();
    if (error == null) {
      lastProgressNs = System.nanoTime();
    }
  }
}

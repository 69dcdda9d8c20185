package io.tpotstream.producer.publish;

import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.kafka.KafkaAccessException;
import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.kafka.KafkaTopics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one FIFO publisher of a producer (DESIGN.md, "Time, windows and completeness"). Event loops
 * only {@link #publish} (a non-blocking offer to a bounded queue); one thread sends in order, sends
 * a watermark heartbeat to every partition at start and every second (watermark = now − 200 ms,
 * taken after draining the queue), never sends an event below a watermark already sent, and on
 * {@link #finish} flushes and sends the final heartbeat to every partition. When the queue is full
 * or Kafka fails, the run is told at once, with the number of events at risk; nothing is dropped
 * silently.
 */
public final class Publisher {
  /** How far behind "now" a periodic watermark is (an event is queued µs after its timestamp). */
  public static final long WATERMARK_MARGIN_MS = 200;

  static final long HEARTBEAT_INTERVAL_NS = TimeUnit.SECONDS.toNanos(1);
  private static final long POLL_NS = TimeUnit.MILLISECONDS.toNanos(20);
  private static final Logger LOG = LoggerFactory.getLogger(Publisher.class);

  private final KafkaSettings settings;
  private final String runId;
  private final String producerId;
  private final AnchoredClock clock;
  private final PauseMeter pauseMeter;
  private final KafkaProducer<String, byte[]> kafka;
  private final List<Integer> partitions;
  private final BlockingQueue<TokenEvent> queue;
  private final Thread thread;
  private final CompletableFuture<Void> finished = new CompletableFuture<>();
  private final AtomicReference<PublishException> failure = new AtomicReference<>();
  private final AtomicLong sent = new AtomicLong();
  private final AtomicLong acked = new AtomicLong();
  private final AtomicLong heartbeats = new AtomicLong();
  private final AtomicLong lateAtSource = new AtomicLong();
  private volatile Consumer<PublishException> onFailure = e -> {};
  private volatile boolean closing;
  private long watermarkMs = Long.MIN_VALUE;

  private Publisher(
      KafkaSettings settings,
      String runId,
      String producerId,
      AnchoredClock clock,
      PauseMeter pauseMeter,
      KafkaProducer<String, byte[]> kafka,
      List<Integer> partitions) {
    this.settings = settings;
    this.runId = runId;
    this.producerId = producerId;
    this.clock = clock;
    this.pauseMeter = pauseMeter;
    this.kafka = kafka;
    this.partitions = partitions;
    this.queue = new ArrayBlockingQueue<>(settings.queueCapacity());
    this.thread = new Thread(this::loop, "tpot-publisher");
    this.thread.setDaemon(true);
  }

  /**
   * Creates the topic if it is missing, connects, and sends the start heartbeat to every partition
   * (and waits until Kafka acknowledged them), then starts the publisher thread.
   *
   * @throws PublishException when Kafka cannot be reached within the setup timeout
   */
  public static Publisher open(
      KafkaSettings settings,
      String runId,
      String producerId,
      AnchoredClock clock,
      PauseMeter pauseMeter) {
    ensureTopic(settings);
    KafkaProducer<String, byte[]> kafka =
        new KafkaProducer<>(producerProperties(settings, producerId));
    Publisher publisher;
    try {
      List<Integer> partitions =
          kafka.partitionsFor(settings.topic()).stream()
              .map(PartitionInfo::partition)
              .sorted()
              .toList();
      publisher = new Publisher(settings, runId, producerId, clock, pauseMeter, kafka, partitions);
      publisher.sendHeartbeats(false);
      kafka.flush();
      PublishException failed = publisher.failure.get();
      if (failed != null) {
        throw failed;
      }
    } catch (RuntimeException e) {
      kafka.close(Duration.ZERO);
      if (e instanceof PublishException p) {
        throw p;
      }
      throw new PublishException(unreachable(settings, e), e);
    }
    publisher.thread.start();
    return publisher;
  }

  /** Called once, from the publisher thread, when the run must stop because Kafka failed. */
  public void onFailure(Consumer<PublishException> handler) {
    this.onFailure = handler;
  }

  /**
   * Hands an event to the publisher thread; never blocks. When the queue is full the run fails (the
   * event is counted at risk).
   */
  public void publish(TokenEvent event) {
    if (failure.get() != null) {
      return;
    }
    if (!queue.offer(event)) {
      fail(
          new PublishException(
              "Kafka is not keeping up: the publish queue is full ("
                  + settings.queueCapacity()
                  + " events waiting); "
                  + (atRisk() + 1)
                  + " events at risk; the run stopped. Check the brokers at "
                  + settings.bootstrapServers(),
              null));
    }
  }

  /**
   * Stops taking events, sends what is queued, flushes, sends the final heartbeat to every
   * partition, and closes the Kafka producer. Completes when all that is done (exceptionally when
   * Kafka failed).
   */
  public CompletableFuture<Void> finish() {
    closing = true;
    return finished;
  }

  /** The failure that stopped publishing, if any. */
  public Optional<PublishException> failure() {
    return Optional.ofNullable(failure.get());
  }

  /** Events (not heartbeats) Kafka acknowledged. */
  public long acknowledged() {
    return acked.get();
  }

  /** Events handed to Kafka, acknowledged or not. */
  public long sent() {
    return sent.get();
  }

  /** Heartbeat records sent (one per partition per heartbeat). */
  public long heartbeats() {
    return heartbeats.get();
  }

  /** Events whose ts was below a watermark already sent; their ts was raised to it. */
  public long lateAtSource() {
    return lateAtSource.get();
  }

  /** Partitions of the topic, in order. */
  public List<Integer> partitions() {
    return partitions;
  }

  /** Events queued or sent but not acknowledged: what a Kafka failure now would put at risk. */
  public long atRisk() {
    return queue.size() + Math.max(0, sent.get() - acked.get());
  }

  private void loop() {
    long nextHeartbeatNs = System.nanoTime() + HEARTBEAT_INTERVAL_NS;
    try {
      while (!closing && failure.get() == null) {
        long waitNs = nextHeartbeatNs - System.nanoTime();
        if (waitNs <= 0) {
          drain();
          sendHeartbeats(false);
          nextHeartbeatNs = Math.max(nextHeartbeatNs + HEARTBEAT_INTERVAL_NS, System.nanoTime());
          continue;
        }
        TokenEvent event;
        try {
          // short polls, so that finish() is seen quickly without interrupting a Kafka call
          event = queue.poll(Math.min(waitNs, POLL_NS), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          fail(new PublishException("the publisher thread was interrupted", e));
          break;
        }
        if (event != null) {
          send(event);
        }
      }
      if (failure.get() == null) {
        drain();
        kafka.flush();
        sendHeartbeats(true);
        kafka.flush();
      }
    } catch (RuntimeException e) {
      fail(new PublishException(kafkaFailed(e), e));
    } finally {
      kafka.close(Duration.ofSeconds(failure.get() == null ? 30 : 0));
      PublishException failed = failure.get();
      if (failed == null) {
        finished.complete(null);
      } else {
        finished.completeExceptionally(failed);
      }
    }
  }

  private void drain() {
    TokenEvent event;
    while (failure.get() == null && (event = queue.poll()) != null) {
      send(event);
    }
  }

  private void send(TokenEvent event) {
    TokenEvent e = event;
    if (e.ts() < watermarkMs) {
      lateAtSource.incrementAndGet();
      e = withTs(e, watermarkMs);
    }
    ProducerRecord<String, byte[]> record =
        new ProducerRecord<>(
            settings.topic(), null, e.ts(), e.requestId(), TokenEventCodec.encode(e));
    sent.incrementAndGet();
    kafka.send(
        record,
        (metadata, error) -> {
          if (error == null) {
            acked.incrementAndGet();
          } else {
            fail(new PublishException(kafkaFailed(error), error));
          }
        });
  }

  private void sendHeartbeats(boolean isFinal) {
    long now = clock.nowMs();
    long watermark = Math.max(watermarkMs, isFinal ? now : now - WATERMARK_MARGIN_MS);
    watermarkMs = watermark;
    TokenEvent heartbeat =
        TokenEvent.heartbeat(
            now, runId, producerId, watermark, isFinal, pauseMeter.takeMaxMicros());
    byte[] value = TokenEventCodec.encode(heartbeat);
    for (int partition : partitions) {
      heartbeats.incrementAndGet();
      kafka.send(
          new ProducerRecord<>(settings.topic(), partition, now, producerId, value),
          (metadata, error) -> {
            if (error != null) {
              fail(new PublishException(kafkaFailed(error), error));
            }
          });
    }
  }

  private void fail(PublishException e) {
    if (failure.compareAndSet(null, e)) {
      LOG.error(e.getMessage());
      onFailure.accept(e);
    }
  }

  private String kafkaFailed(Throwable cause) {
    return "Kafka stopped taking events ("
        + cause.getClass().getSimpleName()
        + ": "
        + cause.getMessage()
        + "); "
        + atRisk()
        + " events at risk (queued or not acknowledged); the run stopped. Check the brokers at "
        + settings.bootstrapServers();
  }

  private static TokenEvent withTs(TokenEvent e, long ts) {
    return e.withTs(ts);
  }

  static Properties producerProperties(KafkaSettings settings, String producerId) {
    Properties p = new Properties();
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "tpot-producer-" + producerId);
    // token events are small and repetitive JSON; lz4 is cheap on the sender
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    // a few ms of batching; events carry their own timestamps, so latency here is harmless
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    // fail fast when the brokers are unreachable at start instead of waiting a minute
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(settings.setupTimeout().toMillis()));
    // the user's settings (security, tuning) override the defaults above, not what follows
    p.putAll(settings.clientProperties());
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    // no duplicates and no reordering on retry: the aggregator relies on per-request order
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    return p;
  }

  private static void ensureTopic(KafkaSettings settings) {
    KafkaConnection kafka =
        KafkaConnection.of(settings.bootstrapServers(), settings.clientProperties())
            .withTimeout(settings.setupTimeout());
    int timeoutMs = (int) settings.setupTimeout().toMillis();
    try (Admin admin = Admin.create(kafka.adminProperties())) {
      KafkaTopics.Ensured topic =
          KafkaTopics.ensure(admin, kafka, settings.topic(), settings.partitions(), Map.of());
      if (topic.created()) {
        awaitLeaders(admin, settings, timeoutMs);
      }
    } catch (KafkaAccessException e) {
      throw new PublishException(e.getMessage(), e);
    } catch (TimeoutException e) {
      throw new PublishException(unreachable(settings, e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PublishException("interrupted while connecting to Kafka", e);
    }
  }

  /**
   * Waits until every partition of a topic created a moment ago has a leader: the first sends to a
   * partition whose leader is not yet known are retried by the client, and were seen to end in
   * sequence errors on a fresh single-node broker.
   */
  private static void awaitLeaders(Admin admin, KafkaSettings settings, int timeoutMs)
      throws InterruptedException, TimeoutException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (System.nanoTime() < deadline) {
      try {
        TopicDescription d =
            admin
                .describeTopics(List.of(settings.topic()))
                .allTopicNames()
                .get(timeoutMs, TimeUnit.MILLISECONDS)
                .get(settings.topic());
        if (d.partitions().size() == settings.partitions()
            && d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty())) {
          return;
        }
      } catch (ExecutionException e) {
        // metadata not propagated yet: ask again
      }
      Thread.sleep(50);
    }
    LOG.warn("topic {}: not every partition had a leader after {} ms", settings.topic(), timeoutMs);
  }

  private static String unreachable(KafkaSettings settings, Throwable cause) {
    return "cannot reach Kafka at "
        + settings.bootstrapServers()
        + " within "
        + settings.setupTimeout().toSeconds()
        + " s ("
        + cause.getClass().getSimpleName()
        + (cause.getMessage() == null ? "" : ": " + cause.getMessage())
        + "): check --bootstrap-server and, for a secured cluster, --kafka-config";
  }
}

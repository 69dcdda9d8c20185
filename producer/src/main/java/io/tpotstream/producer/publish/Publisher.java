package io.tpotstream.producer.publish;

import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * The one FIFO publisher of a producer (docs/design.md, "Time, windows and completeness"), on one
 * thread. It polls the {@link Handoff} the event loops write to (never woken per event), lets the
 * {@link Recorder} turn each request's SSE bytes into events, holds them in a FIFO ({@link
 * HeldEvents}) in order and hands them to the Kafka client from there, encoding each token event
 * into a reused buffer. It sends a watermark heartbeat to every partition at start and every 250 ms
 * (watermark = now − 200 ms, taken after draining the hand-off), never lets an event below a
 * watermark already sent, and on {@link #finish} flushes and sends the final heartbeat to every
 * partition.
 *
 * <p>Kafka is never waited on: the client is told not to block ({@code max.block.ms=0}), so a send
 * that finds no metadata or no buffer space is refused at once, the event stays at the head of the
 * FIFO and is offered again 100 ms later. When the broker is unreachable the measurement goes on,
 * the FIFO grows (the outage buffer, bounded), the console says so, and publishing resumes in order
 * when the broker returns; the idempotent client retries what it had taken without duplicates. Only
 * a full outage buffer, an outage longer than {@code delivery.timeout.ms} or a record Kafka rejects
 * for good stops the run, with the number of events at risk.
 *
 * <p>A dropping publisher ({@link #openDropping}, the proxy's) never stops for Kafka, because the
 * traffic it measures is not its own to stop: it serves before Kafka is reachable (connecting in
 * the background), rides out outages of any length, and when the hand-off or the outage buffer is
 * full it drops the request's remaining events and counts them ({@link #dropped()}, and {@code
 * droppedEvents} on its heartbeats).
 */
public final class Publisher {
  /** How far behind "now" a periodic watermark is (an event is queued µs after its timestamp). */
  public static final long WATERMARK_MARGIN_MS = 200;

  /** Events the outage buffer holds by default: a one-minute outage at 1,000 streams × 50/s. */
  public static final long DEFAULT_OUTAGE_BUFFER = 3_000_000;

  /**
   * Between periodic heartbeats: a window closes at the first heartbeat whose watermark passes its
   * end, so this plus {@link #WATERMARK_MARGIN_MS} bounds how long a closed window waits (B3).
   */
  static final long HEARTBEAT_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(250);

  // between polls of the hand-off: events carry their own times, so a few ms of batching costs
  // nothing that is measured and saves the wake-ups (250 a second instead of 1,000)
  private static final long PARK_NS = TimeUnit.MILLISECONDS.toNanos(4);
  private static final long RETRY_NS = TimeUnit.MILLISECONDS.toNanos(100);
  private static final int POLL_BATCH = 4096;
  private static final int SEND_BATCH = 8192;
  private static final long CONNECT_RETRY_NS = TimeUnit.SECONDS.toNanos(5);
  private static final long DROP_REPORT_NS = TimeUnit.SECONDS.toNanos(60);
  private static final Logger LOG = LoggerFactory.getLogger(Publisher.class);

  private final KafkaSettings settings;
  private final String runId;
  private final String producerId;
  private final byte[] producerKey;
  private final AnchoredClock clock;
  private final PauseMeter pauseMeter;
  private final LongSupplier loopLag;
  private final Handoff handoff;
  private final Recorder recorder;
  private final KafkaProducer<byte[], byte[]> kafka;
  private volatile List<Integer> partitions;
  private final long deliveryTimeoutNs;
  private final boolean dropping;
  private final AtomicLong dropped = new AtomicLong();
  private final HeldEvents held;
  private final Thread thread;
  private final CompletableFuture<Void> finished = new CompletableFuture<>();
  private final AtomicReference<PublishException> failure = new AtomicReference<>();
  private final AtomicLong sentEvents = new AtomicLong();
  private final AtomicLong ackedEvents = new AtomicLong();
  private final AtomicLong sentRecords = new AtomicLong();
  private final AtomicLong ackedRecords = new AtomicLong();
  private final AtomicLong heartbeats = new AtomicLong();
  private final AtomicLong lateAtSource = new AtomicLong();
  private final AtomicLong heldNow = new AtomicLong();
  private volatile long lastProgressNs = System.nanoTime();
  private volatile Consumer<PublishException> onFailure = e -> {};
  private volatile boolean closing;
  private long watermarkMs = Long.MIN_VALUE;
  private int heartbeatPartitionsDone;

  // a send refused synchronously (no metadata, no buffer space) lands here, on this thread
  private volatile Thread sendingOn;
  private Exception refused;

  /** The last {@link #send} skipped its record (counted as dropped, never acknowledged). */
  private boolean skipped;

  private long retryAtNs;

  // outage bookkeeping (publisher thread)
  private final OutageWatch outage;

  // a dropping publisher: reaching Kafka in the background, and giving up on it at the end
  private volatile boolean connected = true;
  private CompletableFuture<Integer> connecting;
  private long nextConnectNs;
  private long lastDropReportNs;
  private long giveUpNs = Long.MAX_VALUE;

  private final Callback eventAck = this::onEventAck;
  private final Callback heartbeatAck = this::onHeartbeatAck;

  private Publisher(
      KafkaSettings settings, Wiring wiring, List<Integer> partitions, boolean dropping) {
    this.settings = settings;
    this.runId = wiring.runId();
    this.producerId = wiring.producerId();
    this.producerKey = producerId.getBytes(StandardCharsets.UTF_8);
    this.clock = wiring.clock();
    this.pauseMeter = wiring.pauseMeter();
    this.loopLag = wiring.loopLag();
    this.handoff = wiring.handoff();
    this.recorder = wiring.recorder();
    this.partitions = partitions;
    this.dropping = dropping;
    this.held = new HeldEvents(settings.outageBuffer());
    this.thread = new Thread(this::loop, "tpot-publisher");
    this.thread.setDaemon(true);
    Properties props = PublishTopic.producerProperties(settings, producerId);
    this.deliveryTimeoutNs =
        TimeUnit.MILLISECONDS.toNanos(
            Long.parseLong(props.getProperty(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG)));
    this.outage = new OutageWatch(settings.bootstrapServers(), held, deliveryTimeoutNs, dropping);
    // last: nothing that follows can fail and leave the client open
    this.kafka = new KafkaProducer<>(props);
    if (dropping) {
      handoff.onFull(
          lost -> {
            dropped.incrementAndGet();
            reportDrops("the hand-off from the event loops is full (the publisher fell behind)");
          });
      return;
    }
    handoff.onFull(
        lost ->
            fail(
                new PublishException(
                    "the publisher thread fell behind: the hand-off from the event loops is full ("
                        + handoff.capacity()
                        + " entries waiting); "
                        + (atRisk() + lost)
                        + " events at risk; the run stopped. The machine is too busy for this"
                        + " load: lower the concurrency or give the producer more CPU",
                    null)));
  }

  /**
   * What a publisher is wired to besides Kafka.
   *
   * @param runId the run its heartbeats name
   * @param producerId the producer its heartbeats name
   * @param clock the wall clock of its events and watermarks
   * @param pauseMeter the JVM pauses its heartbeats report
   * @param loopLag the event loops' worst tick lateness since the last call, in µs
   * @param handoff where the event loops hand over; the publisher thread polls it
   * @param recorder reads the requests' events (null when only {@link #publish} is used)
   */
  public record Wiring(
      String runId,
      String producerId,
      AnchoredClock clock,
      PauseMeter pauseMeter,
      LongSupplier loopLag,
      Handoff handoff,
      Recorder recorder) {}

  /**
   * As {@link #open(KafkaSettings, Wiring)} for events handed over with {@link #publish} only (no
   * requests).
   */
  public static Publisher open(
      KafkaSettings settings,
      String runId,
      String producerId,
      AnchoredClock clock,
      PauseMeter pauseMeter) {
    Handoff handoff = new Handoff(settings.queueCapacity());
    return open(
        settings, new Wiring(runId, producerId, clock, pauseMeter, () -> 0L, handoff, null));
  }

  /**
   * Creates the topic if it is missing, connects, sends the start heartbeat to every partition (and
   * waits until Kafka acknowledged them), then starts the publisher thread.
   *
   * @throws PublishException when Kafka cannot be reached within the setup timeout
   */
  public static Publisher open(KafkaSettings settings, Wiring wiring) {
    List<Integer> partitions = PublishTopic.partitionList(PublishTopic.ensureTopic(settings));
    Publisher publisher = new Publisher(settings, wiring, partitions, false);
    try {
      publisher.sendStartHeartbeats();
    } catch (RuntimeException e) {
      publisher.kafka.close(Duration.ZERO);
      if (e instanceof PublishException p) {
        throw p;
      }
      throw new PublishException(PublishTopic.unreachable(settings, e), e);
    }
    publisher.thread.start();
    return publisher;
  }

  /**
   * A publisher that drops rather than waits or stops (the proxy's): it returns at once, whether
   * Kafka is reachable or not. Until it has reached Kafka (it tries every 5 s) and during any
   * outage, events are held in the outage buffer; when the buffer or the hand-off is full, the
   * request concerned has its remaining events dropped and counted. Kafka errors are logged and
   * counted as drops, never fatal.
   */
  public static Publisher openDropping(KafkaSettings settings, Wiring wiring) {
    Publisher publisher = new Publisher(settings, wiring, List.of(), true);
    publisher.connected = false;
    publisher.thread.start();
    return publisher;
  }

  /** True once the publisher has reached Kafka (always, for one that does not drop). */
  public boolean connected() {
    return connected;
  }

  /** Events dropped so far (a dropping publisher; a lost hand-off entry counts as one). */
  public long dropped() {
    return dropped.get();
  }

  /** Called once, from the thread that saw it, when the run must stop because of Kafka. */
  public void onFailure(Consumer<PublishException> handler) {
    this.onFailure = handler;
  }

  /** Hands an event to the publisher thread, in order with the requests' events; never blocks. */
  public void publish(TokenEvent event) {
    if (failure.get() == null) {
      handoff.object(event);
    }
  }

  /**
   * Stops taking events, sends what is held (waiting for Kafka if it is away), flushes, sends the
   * final heartbeat to every partition, and closes the Kafka producer. Completes when all that is
   * done (exceptionally when Kafka failed).
   */
  public CompletableFuture<Void> finish() {
    closing = true;
    LockSupport.unpark(thread);
    return finished;
  }

  /** The failure that stopped publishing, if any. */
  public Optional<PublishException> failure() {
    return Optional.ofNullable(failure.get());
  }

  /** Events (not heartbeats) Kafka acknowledged. */
  public long acknowledged() {
    return ackedEvents.get();
  }

  /** Events handed to Kafka, acknowledged or not. */
  public long sent() {
    return sentEvents.get();
  }

  /** Heartbeat records sent (one per partition per heartbeat). */
  public long heartbeats() {
    return heartbeats.get();
  }

  /** Events whose ts was below a watermark already sent; their ts was raised to it. */
  public long lateAtSource() {
    return lateAtSource.get();
  }

  /** Events held in the outage buffer now (not yet handed to Kafka). */
  public long held() {
    return heldNow.get();
  }

  /** True while Kafka is taking nothing (an outage the console has been told about). */
  public boolean inOutage() {
    return outage.inOutage();
  }

  /** The outages seen so far: count, longest (ns), most events held at once. */
  public Outages outages() {
    return new Outages(outage.count(), Duration.ofNanos(outage.longestNs()), held.maxSize());
  }

  /**
   * Kafka outages a run rode out.
   *
   * @param count times Kafka took nothing for 2 s or more
   * @param longest the longest of them
   * @param maxHeld most events held in the outage buffer at once
   */
  public record Outages(long count, Duration longest, long maxHeld) {}

  /** Partitions of the topic, in order. */
  public List<Integer> partitions() {
    return partitions;
  }

  /** Events handed over but not acknowledged: what a Kafka failure now would put at risk. */
  public long atRisk() {
    return handoff.backlog() + heldNow.get() + Math.max(0, sentEvents.get() - ackedEvents.get());
  }

  // ---- the publisher thread ----

  private void loop() {
    long nextHeartbeatNs = System.nanoTime() + HEARTBEAT_INTERVAL_NS;
    try {
      while (failure.get() == null) {
        boolean wasClosing = closing;
        int taken = poll();
        long now = System.nanoTime();
        if (!connected) {
          connect(now);
        }
        if (now >= nextHeartbeatNs) {
          heartbeat(false);
          nextHeartbeatNs = Math.max(nextHeartbeatNs + HEARTBEAT_INTERVAL_NS, now);
        }
        int sent = sendHeld(now);
        watchOutage(now);
        if (wasClosing && taken == 0 && handoff.backlog() == 0) {
          break;
        }
        if (taken < POLL_BATCH && sent < SEND_BATCH) {
          LockSupport.parkNanos(PARK_NS);
        }
      }
      // every request has ended: send what is held, whatever the wait for Kafka (a dropping
      // publisher waits at most the setup timeout), then the finals
      if (dropping) {
        giveUpNs = System.nanoTime() + settings.setupTimeout().toNanos();
      }
      while (failure.get() == null && !held.isEmpty()) {
        long now = System.nanoTime();
        if (!connected || now > giveUpNs) {
          dropHeld();
          break;
        }
        int sent = sendHeld(now);
        watchOutage(now);
        if (sent == 0) {
          LockSupport.parkNanos(PARK_NS);
        }
      }
      if (dropping && (!connected || outage.active() || !held.isEmpty())) {
        // Kafka is away: no final heartbeat can go, and a flush would wait for it
        dropHeld();
        dropped.addAndGet(Math.max(0, sentEvents.get() - ackedEvents.get()));
        LOG.warn(
            "stopping while Kafka at {} is unreachable: {} events dropped in all; no final"
                + " heartbeat sent",
            settings.bootstrapServers(),
            dropped.get());
        return;
      }
      if (failure.get() == null) {
        kafka.flush();
        watchOutage(System.nanoTime());
        sendFinalHeartbeats();
        kafka.flush();
      }
      if (dropping && ackedEvents.get() < sentEvents.get()) {
        dropped.addAndGet(sentEvents.get() - ackedEvents.get());
      } else if (failure.get() == null && ackedEvents.get() < sentEvents.get()) {
        fail(
            new PublishException(
                "Kafka did not acknowledge "
                    + (sentEvents.get() - ackedEvents.get())
                    + " events by the end of the run; check the brokers at "
                    + settings.bootstrapServers(),
                null));
      }
    } catch (PublishException e) {
      fail(e);
    } catch (RuntimeException e) {
      fail(new PublishException(kafkaFailed(e), e));
    } finally {
      boolean away = dropping && (!connected || outage.active());
      kafka.close(Duration.ofSeconds(failure.get() == null && !away ? 30 : 0));
      PublishException failed = failure.get();
      if (failed == null) {
        finished.complete(null);
      } else {
        finished.completeExceptionally(failed);
      }
    }
  }

  private int poll() {
    int taken = handoff.drain(POLL_BATCH, recorder, this);
    heldNow.set(held.size());
    return taken;
  }

  /** Holds an event (start, end, error, heartbeat, or one handed over whole) for sending. */
  void append(TokenEvent event) {
    append(null, event);
  }

  /** Holds an event of {@code request} (null for none) for sending. */
  void append(MeasuredRequest request, TokenEvent event) {
    if (dropping && request != null && request.warmup) {
      return; // a proxy's priming: measured to warm the path, never published
    }
    if (dropping && request != null && request.dropped) {
      dropped.incrementAndGet();
      return;
    }
    TokenEvent e = event;
    if (e.type() != EventType.HEARTBEAT && e.ts() < watermarkMs) {
      lateAtSource.incrementAndGet();
      e = e.withTs(watermarkMs);
    }
    if (!held.offer(e)) {
      if (dropping) {
        if (e.type() != EventType.HEARTBEAT) {
          dropFrom(request);
        }
        return;
      }
      bufferFull();
    }
  }

  /**
   * Holds a token event of {@code request}, as numbers ({@code bits}: its tokens, kind and
   * coalesced flag, from {@link HeldEvents#chunkBits}; {@code lagUs}: the client's lag in its gap).
   */
  void appendToken(MeasuredRequest request, long ts, long elapsedNs, int seq, int bits, int lagUs) {
    if (dropping && request.warmup) {
      return; // a proxy's priming: measured to warm the path, never published
    }
    if (dropping && request.dropped) {
      dropped.incrementAndGet();
      return;
    }
    long at = ts;
    if (at < watermarkMs) {
      lateAtSource.incrementAndGet();
      at = watermarkMs;
    }
    if (!held.offerToken(request, at, elapsedNs, seq, bits, lagUs)) {
      if (dropping) {
        dropFrom(request);
        return;
      }
      bufferFull();
    }
  }

  /** A dropping publisher could not hold an event of {@code request}: it and the rest go. */
  private void dropFrom(MeasuredRequest request) {
    if (request != null) {
      request.dropped = true;
    }
    dropped.incrementAndGet();
    reportDrops(
        String.format(
            Locale.ROOT,
            "the outage buffer is full (%,d events held for Kafka at %s)",
            held.size(),
            settings.bootstrapServers()));
  }

  /** Drops whatever is held (a dropping publisher stopping while Kafka is away). */
  private void dropHeld() {
    while (!held.isEmpty()) {
      if (held.headIsToken() || held.headEvent().type() != EventType.HEARTBEAT) {
        dropped.incrementAndGet();
      }
      held.remove();
    }
    heldNow.set(0);
  }

  /** Says, at most once a minute, that events are being dropped and how many so far. */
  private void reportDrops(String why) {
    long now = System.nanoTime();
    if (lastDropReportNs == 0 || now - lastDropReportNs >= DROP_REPORT_NS) {
      lastDropReportNs = now;
      LOG.warn(
          "{}: dropping token events ({} so far); the traffic is not affected", why, dropped.get());
    }
  }

  /** A dropping publisher not yet connected: asks for the topic in the background every 5 s. */
  private void connect(long now) {
    if (connecting == null) {
      if (now >= nextConnectNs) {
        connecting =
            CompletableFuture.supplyAsync(
                () -> PublishTopic.ensureTopic(settings), Publisher::daemon);
      }
      return;
    }
    if (!connecting.isDone()) {
      return;
    }
    try {
      int count = connecting.join();
      partitions = PublishTopic.partitionList(count);
      connected = true;
      lastProgressNs = now;
      // after a failed attempt (a WARN), a WARN too: --quiet shows warnings, and this one ends it
      LOG.atLevel(nextConnectNs == 0 ? Level.INFO : Level.WARN)
          .log(
              "reached Kafka at {}: publishing to {} ({} partitions){}",
              settings.bootstrapServers(),
              settings.topic(),
              count,
              held.isEmpty() ? "" : ", the " + held.size() + " events held first");
    } catch (RuntimeException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      if (nextConnectNs == 0) {
        LOG.warn(
            "{}; holding the events meanwhile (then dropping them, counted) and trying again"
                + " every {} s",
            cause.getMessage(),
            TimeUnit.NANOSECONDS.toSeconds(CONNECT_RETRY_NS));
      }
      nextConnectNs = now + CONNECT_RETRY_NS;
    } finally {
      if (connecting != null && connecting.isDone()) {
        connecting = null;
      }
    }
  }

  private static void daemon(Runnable task) {
    Thread t = new Thread(task, "tpot-publisher-connect");
    t.setDaemon(true);
    t.start();
  }

  private void bufferFull() {
    fail(
        new PublishException(
            String.format(
                Locale.ROOT,
                "the outage buffer is full (%,d events held): Kafka at %s has taken nothing for"
                    + " %.1f s; %,d events at risk; the run stopped. Check the brokers, or hold"
                    + " more with --outage-buffer",
                held.size(),
                settings.bootstrapServers(),
                (System.nanoTime() - lastProgressNs) / 1e9,
                atRisk() + 1),
            null));
  }

  /** Hands held events to Kafka in order until it refuses one; returns how many it took. */
  private int sendHeld(long now) {
    if (held.isEmpty() || now < retryAtNs || !connected) {
      return 0;
    }
    int n = 0;
    while (!held.isEmpty() && failure.get() == null && n < SEND_BATCH) {
      if (!sendHead()) {
        retryAtNs = now + RETRY_NS;
        break;
      }
      held.remove();
      n++;
    }
    heldNow.set(held.size());
    return n;
  }

  /** Sends the FIFO's head; false when Kafka refused it for now (it stays held). */
  private boolean sendHead() {
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
      if (!send(new ProducerRecord<>(settings.topic(), null, ts, r.key, value), eventAck)) {
        return false;
      }
      if (!skipped) {
        sentEvents.incrementAndGet();
      }
      return true;
    }
    TokenEvent e = held.headEvent();
    if (e.type() == EventType.HEARTBEAT) {
      byte[] value = TokenEventCodec.encode(e);
      while (heartbeatPartitionsDone < partitions.size()) {
        int partition = partitions.get(heartbeatPartitionsDone);
        if (!send(
            new ProducerRecord<>(settings.topic(), partition, e.ts(), producerKey, value),
            heartbeatAck)) {
          return false;
        }
        heartbeats.incrementAndGet();
        heartbeatPartitionsDone++;
      }
      heartbeatPartitionsDone = 0;
      return true;
    }
    byte[] key = e.requestId().getBytes(StandardCharsets.UTF_8);
    if (!send(
        new ProducerRecord<>(settings.topic(), null, e.ts(), key, TokenEventCodec.encode(e)),
        eventAck)) {
      return false;
    }
    if (!skipped) {
      sentEvents.incrementAndGet();
    }
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
    if (refused instanceof org.apache.kafka.common.errors.TimeoutException) {
      return false;
    }
    if (refused instanceof org.apache.kafka.common.errors.RecordTooLargeException) {
      skipped = true;
      dropped.incrementAndGet();
      LOG.warn(
          "Kafka refused one event of {} bytes ({}): skipped and counted as dropped ({} so far);"
              + " the other events go on",
          record.value().length,
          refused.getMessage(),
          dropped.get());
      return true;
    }
    throw new PublishException(kafkaFailed(refused), refused);
  }

  private long outstanding() {
    return sentRecords.get() - ackedRecords.get();
  }

  private boolean refusedNow(Exception error) {
    if (Thread.currentThread() == sendingOn) {
      refused = error;
      return true;
    }
    return false;
  }

  private void onEventAck(RecordMetadata metadata, Exception error) {
    if (error != null && refusedNow(error)) {
      return;
    }
    if (error != null && dropping) {
      ackedEvents.incrementAndGet();
      ackedRecords.incrementAndGet();
      dropped.incrementAndGet();
      reportDrops("Kafka did not take an event (" + error.getClass().getSimpleName() + ")");
      return;
    }
    if (error != null) {
      fail(new PublishException(kafkaFailed(error), error));
      return;
    }
    ackedEvents.incrementAndGet();
    ackedRecords.incrementAndGet();
    lastProgressNs = System.nanoTime();
  }

  private void onHeartbeatAck(RecordMetadata metadata, Exception error) {
    if (error != null && refusedNow(error)) {
      return;
    }
    if (error != null && dropping) {
      ackedRecords.incrementAndGet();
      return;
    }
    if (error != null) {
      fail(new PublishException(kafkaFailed(error), error));
      return;
    }
    ackedRecords.incrementAndGet();
    lastProgressNs = System.nanoTime();
  }

  /** Watches for an outage; a stopping publisher stops once one passes delivery.timeout.ms. */
  private void watchOutage(long now) {
    long unacked = Math.max(0, sentEvents.get() - ackedEvents.get());
    if (outage.tooLong(now, lastProgressNs, outstanding(), unacked)) {
      fail(
          new PublishException(
              String.format(
                  Locale.ROOT,
                  "Kafka at %s has taken nothing for %.0f s, longer than delivery.timeout.ms;"
                      + " %,d events at risk (held or not acknowledged); the run stopped. Check"
                      + " the brokers",
                  settings.bootstrapServers(),
                  outage.lastingNs(now) / 1e9,
                  atRisk()),
              null));
    }
  }

  private void heartbeat(boolean isFinal) {
    long now = clock.nowMs();
    long watermark = Math.max(watermarkMs, isFinal ? now : now - WATERMARK_MARGIN_MS);
    watermarkMs = watermark;
    TokenEvent heartbeat =
        TokenEvent.heartbeat(
                now,
                runId,
                producerId,
                watermark,
                isFinal,
                pauseMeter.takeMaxMicros(),
                loopLag.getAsLong(),
                recorder == null ? 0L : recorder.takeCoalesced())
            .withSource(recorder == null ? Recorder.SOURCE : recorder.source());
    append(dropping ? heartbeat.withDroppedEvents(dropped.get()) : heartbeat);
  }

  private void sendStartHeartbeats() {
    heartbeat(false);
    long deadline = System.nanoTime() + settings.setupTimeout().toNanos();
    while (!held.isEmpty()) {
      if (sendHead()) {
        held.remove();
      } else if (System.nanoTime() > deadline) {
        throw new PublishException(
            PublishTopic.unreachable(settings, new TimeoutException("no partition metadata")),
            null);
      } else {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
      }
    }
    heldNow.set(0);
    kafka.flush();
    PublishException failed = failure.get();
    if (failed != null) {
      throw failed;
    }
  }

  private void sendFinalHeartbeats() {
    heartbeat(true);
    while (failure.get() == null && !held.isEmpty() && System.nanoTime() < giveUpNs) {
      if (sendHead()) {
        held.remove();
      } else {
        watchOutage(System.nanoTime());
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
      }
    }
    heldNow.set(held.size());
  }

  private void fail(PublishException e) {
    if (failure.compareAndSet(null, e)) {
      LOG.error(e.getMessage());
      onFailure.accept(e);
      LockSupport.unpark(thread);
    }
  }

  private String kafkaFailed(Throwable cause) {
    return "Kafka stopped taking events ("
        + cause.getClass().getSimpleName()
        + ": "
        + cause.getMessage()
        + "); "
        + atRisk()
        + " events at risk (held or not acknowledged); the run stopped. Check the brokers at "
        + settings.bootstrapServers();
  }
}

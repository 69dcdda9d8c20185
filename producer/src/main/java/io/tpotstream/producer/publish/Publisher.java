package io.tpotstream.producer.publish;

import io.tpotstream.common.event.TokenEvent;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one FIFO publisher of a producer (docs/design.md, "Time, windows and completeness"), on one
 * thread. It polls the {@link Handoff} the event loops write to (never woken per event), lets the
 * {@link Recorder} turn each request's SSE bytes into events, holds them in order in the {@link
 * OutageBuffer} and hands them to Kafka from there ({@link KafkaSender}). It sends a watermark
 * heartbeat to every partition at start and every 250 ms (watermark = now − 200 ms, taken after
 * draining the hand-off), never lets an event below a watermark already sent, and on {@link
 * #finish} flushes and sends the final heartbeat to every partition.
 *
 * <p>Kafka is never waited on: a send Kafka cannot take at once leaves the event at the head of the
 * FIFO and is offered again 100 ms later. When the broker is unreachable the measurement goes on,
 * the FIFO grows (the outage buffer, bounded), the console says so ({@link OutageWatch}), and
 * publishing resumes in order when the broker returns; the idempotent client retries what it had
 * taken without duplicates. What happens when that is no longer possible is the {@link
 * OutagePolicy} the caller chose: the producer stops the run, the proxy drops and counts.
 */
public final class Publisher {
  /** How far behind "now" a periodic watermark is (an event is queued µs after its timestamp). */
  public static final long WATERMARK_MARGIN_MS = 200;

  /**
   * Events the outage buffer holds by default, about 36 MB of heap when full: 100 s of an outage at
   * 200 streams × 50 tokens/s, 20 s at 1,000 (produce and proxy alike: both run in a 128 MB heap).
   */
  public static final long DEFAULT_OUTAGE_BUFFER = 1_000_000;

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
  private static final Logger LOG = LoggerFactory.getLogger(Publisher.class);

  final KafkaSettings settings;
  final Handoff handoff;
  final OutageBuffer buffer;
  final OutageWatch outage;
  final KafkaSender sender;
  private final OutagePolicy policy;
  private final String runId;
  private final String producerId;
  private final AnchoredClock clock;
  private final PauseMeter pauseMeter;
  private final LongSupplier loopLag;
  private final Recorder recorder;
  private final Thread thread;
  private final CompletableFuture<Void> finished = new CompletableFuture<>();
  private final AtomicReference<PublishException> failure = new AtomicReference<>();
  private volatile Consumer<PublishException> onFailure;
  private final AtomicBoolean told = new AtomicBoolean();
  private volatile boolean closing;
  private long retryAtNs;

  /** A publisher under {@code policy}, to Kafka's {@code partitions} (none until reached). */
  Publisher(KafkaSettings settings, Wiring wiring, OutagePolicy policy, List<Integer> partitions) {
    policy.serve(this);
    this.settings = settings;
    this.policy = policy;
    this.runId = wiring.runId();
    this.producerId = wiring.producerId();
    this.clock = wiring.clock();
    this.pauseMeter = wiring.pauseMeter();
    this.loopLag = wiring.loopLag();
    this.handoff = wiring.handoff();
    this.recorder = wiring.recorder();
    this.buffer = new OutageBuffer(settings.outageBuffer(), policy);
    this.thread = new Thread(this::loop, "tpot-publisher");
    this.thread.setDaemon(true);
    Properties props = PublishTopic.producerProperties(settings, producerId);
    long deliveryTimeoutNs =
        TimeUnit.MILLISECONDS.toNanos(
            Long.parseLong(props.getProperty(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG)));
    this.outage = new OutageWatch(settings.bootstrapServers(), buffer, deliveryTimeoutNs, policy);
    handoff.onFull(policy::handoffFull);
    // last: nothing that follows can fail and leave the client open
    this.sender =
        new KafkaSender(props, settings.topic(), producerId, partitions, policy, this::kafkaFailed);
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
   * As {@link #open(KafkaSettings, Wiring, OutagePolicy)}, stopping on an outage, for events handed
   * over with {@link #publish} only (no requests).
   */
  public static Publisher open(
      KafkaSettings settings,
      String runId,
      String producerId,
      AnchoredClock clock,
      PauseMeter pauseMeter) {
    Handoff handoff = new Handoff(settings.queueCapacity());
    return open(
        settings,
        new Wiring(runId, producerId, clock, pauseMeter, () -> 0L, handoff, null),
        OutagePolicy.stop());
  }

  /**
   * Opens a publisher and starts its thread. Under {@link OutagePolicy#stop()} it first creates the
   * topic if it is missing, connects and sends the start heartbeat to every partition (waiting
   * until Kafka acknowledged them); under {@link OutagePolicy#drop()} it returns at once, whether
   * Kafka is reachable or not.
   *
   * @throws PublishException (stop) when Kafka cannot be reached within the setup timeout
   */
  public static Publisher open(KafkaSettings settings, Wiring wiring, OutagePolicy policy) {
    return policy.open(settings, wiring);
  }

  /** True once the publisher has reached Kafka (always, for one that stops on an outage). */
  public boolean connected() {
    return policy.connected();
  }

  /** Events dropped so far (a lost hand-off entry counts as one). */
  public long dropped() {
    return policy.dropped();
  }

  /**
   * Called once when publishing stopped for good (Kafka, or an {@code Error} or a bug on the
   * publisher thread): from the thread that saw it, or at once when it already happened.
   */
  public void onFailure(Consumer<PublishException> handler) {
    this.onFailure = handler;
    tellFailure();
  }

  private void tellFailure() {
    PublishException failed = failure.get();
    Consumer<PublishException> handler = onFailure;
    if (failed != null && handler != null && told.compareAndSet(false, true)) {
      handler.accept(failed);
    }
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
    return sender.ackedEvents();
  }

  /** Events handed to Kafka, acknowledged or not. */
  public long sent() {
    return sender.sentEvents();
  }

  /** Heartbeat records sent (one per partition per heartbeat). */
  public long heartbeats() {
    return sender.heartbeats();
  }

  /** Events whose ts was below a watermark already sent; their ts was raised to it. */
  public long lateAtSource() {
    return buffer.lateAtSource();
  }

  /** Events held in the outage buffer now (not yet handed to Kafka). */
  public long held() {
    return buffer.held();
  }

  /** True while Kafka is taking nothing (an outage the console has been told about). */
  public boolean inOutage() {
    return outage.inOutage();
  }

  /** The outages seen so far: count, longest (ns), most events held at once. */
  public Outages outages() {
    return new Outages(outage.count(), Duration.ofNanos(outage.longestNs()), buffer.maxSize());
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
    return sender.partitions();
  }

  /** Events handed over but not acknowledged: what a Kafka failure now would put at risk. */
  public long atRisk() {
    return handoff.backlog() + buffer.held() + sender.unacked();
  }

  void start() {
    thread.start();
  }

  // ---- the publisher thread ----

  private void loop() {
    long nextHeartbeatNs = System.nanoTime() + HEARTBEAT_INTERVAL_NS;
    try {
      while (failure.get() == null) {
        boolean wasClosing = closing;
        int taken = poll();
        long now = System.nanoTime();
        if (!policy.connected()) {
          policy.connect(now);
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
      end();
    } catch (PublishException e) {
      fail(e);
    } catch (KafkaException e) {
      fail(kafkaFailed(e));
    } catch (RuntimeException | Error e) {
      // a bug or an exhausted JVM: publishing cannot go on, and must not end in silence
      fail(threadFailed(e));
    } finally {
      sender.close(Duration.ofSeconds(failure.get() == null && !policy.away() ? 30 : 0));
      PublishException failed = failure.get();
      if (failed == null) {
        finished.complete(null);
      } else {
        finished.completeExceptionally(failed);
      }
    }
  }

  /**
   * Every request has ended: sends what is held, whatever the wait for Kafka (until the policy
   * gives up), then the final heartbeats.
   */
  private void end() {
    long giveUpNs = policy.giveUpAt(System.nanoTime());
    while (failure.get() == null && !buffer.isEmpty()) {
      long now = System.nanoTime();
      if (!policy.connected() || now > giveUpNs) {
        policy.countDropped(buffer.dropAll());
        break;
      }
      int sent = sendHeld(now);
      watchOutage(now);
      if (sent == 0) {
        LockSupport.parkNanos(PARK_NS);
      }
    }
    if (policy.abandons()) {
      return;
    }
    if (failure.get() == null) {
      sender.flush();
      watchOutage(System.nanoTime());
      sendFinalHeartbeats(giveUpNs);
      sender.flush();
    }
    policy.unacknowledgedAtEnd(sender.sentEvents() - sender.ackedEvents());
  }

  private int poll() {
    int taken = handoff.drain(POLL_BATCH, recorder, buffer);
    buffer.publishSize();
    return taken;
  }

  /** Hands held events to Kafka in order until it refuses one; returns how many it took. */
  private int sendHeld(long now) {
    if (buffer.isEmpty() || now < retryAtNs || !policy.connected()) {
      return 0;
    }
    int n = 0;
    while (!buffer.isEmpty() && failure.get() == null && n < SEND_BATCH) {
      if (!buffer.sendHead(sender)) {
        retryAtNs = now + RETRY_NS;
        break;
      }
      n++;
    }
    buffer.publishSize();
    return n;
  }

  /** Watches for an outage; the policy says whether one past delivery.timeout.ms stops the run. */
  private void watchOutage(long now) {
    if (outage.tooLong(now, sender.lastProgressNs(), sender.outstanding(), sender.unacked())) {
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
    long watermark = buffer.advanceWatermark(isFinal ? now : now - WATERMARK_MARGIN_MS);
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
    buffer.append(policy.stamp(heartbeat));
  }

  /** Sends the start heartbeat to every partition and waits until Kafka acknowledged them. */
  void sendStartHeartbeats() {
    heartbeat(false);
    long deadline = System.nanoTime() + settings.setupTimeout().toNanos();
    while (!buffer.isEmpty()) {
      if (buffer.sendHead(sender)) {
        continue;
      }
      if (System.nanoTime() > deadline) {
        throw new PublishException(
            PublishTopic.unreachable(settings, new TimeoutException("no partition metadata")),
            null);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
    buffer.publishSize();
    sender.flush();
    PublishException failed = failure.get();
    if (failed != null) {
      throw failed;
    }
  }

  private void sendFinalHeartbeats(long giveUpNs) {
    heartbeat(true);
    while (failure.get() == null && !buffer.isEmpty() && System.nanoTime() < giveUpNs) {
      if (!buffer.sendHead(sender)) {
        watchOutage(System.nanoTime());
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
      }
    }
    buffer.publishSize();
  }

  void fail(PublishException e) {
    if (failure.compareAndSet(null, e)) {
      LOG.error(e.getMessage());
      tellFailure();
      LockSupport.unpark(thread);
    }
  }

  private PublishException threadFailed(Throwable cause) {
    LOG.error("the publisher thread failed", cause);
    String advice =
        cause instanceof OutOfMemoryError
            ? "the JVM ran out of memory: give it more heap (TPOT_HEAP_OPTS=-Xmx…) or fewer streams at once"
            : "a bug in tpot: please report it with the stack trace above";
    return new PublishException(
        "the publisher thread failed ("
            + cause.getClass().getSimpleName()
            + ": "
            + cause.getMessage()
            + "); "
            + atRisk()
            + " events at risk (held or not acknowledged); publishing stopped, and the run with it: "
            + advice,
        cause);
  }

  PublishException kafkaFailed(Throwable cause) {
    return new PublishException(
        "Kafka stopped taking events ("
            + cause.getClass().getSimpleName()
            + ": "
            + cause.getMessage()
            + "); "
            + atRisk()
            + " events at risk (held or not acknowledged); the run stopped. Check the brokers at "
            + settings.bootstrapServers(),
        cause);
  }
}

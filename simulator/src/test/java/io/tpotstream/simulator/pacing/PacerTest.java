package io.tpotstream.simulator.pacing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PacerTest {
  private Vertx vertx;
  private Pacer pacer;

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
    pacer = new Pacer(Pacer.DEFAULT_SPIN_NS, "test-pacer");
  }

  @AfterEach
  void stop() throws Exception {
    pacer.close();
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** Records when it ran, on which thread, against its due instant. */
  private static final class Probe extends PacedTask {
    final String name;
    final List<String> order;
    final CountDownLatch done;
    volatile long dueNs;
    volatile long ranNs;
    volatile boolean onEventLoop;

    Probe(LoopMailbox mailbox, String name, List<String> order, CountDownLatch done) {
      super(mailbox);
      this.name = name;
      this.order = order;
      this.done = done;
    }

    @Override
    protected void runDue(long dueNs) {
      this.ranNs = System.nanoTime();
      this.dueNs = dueNs;
      this.onEventLoop = Context.isOnEventLoopThread();
      synchronized (order) {
        order.add(name);
      }
      done.countDown();
    }
  }

  @Test
  void tasksRunOnTheirEventLoopInDueOrderAndNeverEarly() throws Exception {
    LoopMailbox mailbox = new LoopMailbox(vertx.getOrCreateContext());
    List<String> order = new ArrayList<>();
    CountDownLatch done = new CountDownLatch(4);
    // far enough ahead that all four are scheduled before the first is due, even on a busy machine
    long now = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
    List<Probe> probes = new ArrayList<>();
    long[] offsetsMs = {30, 10, 20, 0};
    for (int i = 0; i < offsetsMs.length; i++) {
      Probe probe = new Probe(mailbox, "due+" + offsetsMs[i], order, done);
      probes.add(probe);
      pacer.schedule(probe, now + TimeUnit.MILLISECONDS.toNanos(offsetsMs[i]));
    }

    assertTrue(done.await(5, TimeUnit.SECONDS));
    assertEquals(List.of("due+0", "due+10", "due+20", "due+30"), order);
    for (Probe probe : probes) {
      assertTrue(probe.onEventLoop, probe.name + " ran off the event loop");
      assertTrue(probe.ranNs >= probe.dueNs, probe.name + " ran before it was due");
    }
  }

  @Test
  void aTaskScheduledEarlierThanTheParkedOneWakesThePacer() throws Exception {
    LoopMailbox mailbox = new LoopMailbox(vertx.getOrCreateContext());
    List<String> order = new ArrayList<>();
    CountDownLatch late = new CountDownLatch(1);
    CountDownLatch early = new CountDownLatch(1);
    long now = System.nanoTime();
    pacer.schedule(new Probe(mailbox, "late", order, late), now + TimeUnit.SECONDS.toNanos(3));
    Probe earlyProbe = new Probe(mailbox, "early", order, early);
    pacer.schedule(earlyProbe, now + TimeUnit.MILLISECONDS.toNanos(5));

    assertTrue(early.await(2, TimeUnit.SECONDS), "the early task waited for the late one");
    assertEquals(List.of("early"), order);
    assertTrue(earlyProbe.ranNs >= earlyProbe.dueNs);
  }
}

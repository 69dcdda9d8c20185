package io.tpotstream.simulator.pacing;

/**
 * Work due at a {@link System#nanoTime()} instant, run on its connection's event loop by {@link
 * Pacer}. One task is scheduled at most once at a time; it may reschedule itself from {@link
 * #runDue}.
 */
public abstract class PacedTask implements Comparable<PacedTask> {
  private final LoopMailbox mailbox;
  private long dueNs;
  private long order;

  protected PacedTask(LoopMailbox mailbox) {
    this.mailbox = mailbox;
  }

  /** Runs on the event loop; {@code dueNs} is the instant it was scheduled for. */
  protected abstract void runDue(long dueNs);

  void setDue(long dueNs, long order) {
    this.dueNs = dueNs;
    this.order = order;
  }

  long dueNs() {
    return dueNs;
  }

  LoopMailbox mailbox() {
    return mailbox;
  }

  void fire() {
    runDue(dueNs);
  }

  @Override
  public int compareTo(PacedTask other) {
    int byDue = Long.compare(dueNs, other.dueNs);
    return byDue != 0 ? byDue : Long.compare(order, other.order);
  }
}

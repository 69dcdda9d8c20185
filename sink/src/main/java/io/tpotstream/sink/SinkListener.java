package io.tpotstream.sink;

/**
 * Hears about each batch of summaries as the sink moves it through its outputs, on the sink's
 * thread. The default methods do nothing.
 */
public interface SinkListener {
  SinkListener NONE = new SinkListener() {};

  /** The batch's rows are in the files and on the disk; nothing of it is committed yet. */
  default void filesWritten(int summaries) {}

  /** The batch's metrics records are sent; the transaction is about to commit. */
  default void beforeCommit(int summaries) {}

  /** The batch is committed: its offsets, its metrics records, and it is on {@code /metrics}. */
  default void committed(int summaries, long totalWritten) {}
}

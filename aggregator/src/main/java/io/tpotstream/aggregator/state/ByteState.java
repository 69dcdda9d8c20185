package io.tpotstream.aggregator.state;

import java.util.function.BiConsumer;
import org.apache.kafka.common.utils.Bytes;

/**
 * A sorted byte-keyed map: what the window logic needs from a state store. Kafka Streams stores
 * back it in the aggregator, a {@link java.util.TreeMap} in the offline {@code stats} command, so
 * that both run the same logic over the same encodings. Keys sort as unsigned bytes.
 */
public interface ByteState {
  /** The value stored under {@code key}, or null. */
  byte[] get(Bytes key);

  void put(Bytes key, byte[] value);

  void delete(Bytes key);

  /**
   * Visits the entries with {@code from <= key < to}, in key order; do not modify while visiting.
   */
  void range(Bytes from, Bytes to, BiConsumer<Bytes, byte[]> visitor);

  /** Visits every entry, in key order; do not modify while visiting. */
  void forEach(BiConsumer<Bytes, byte[]> visitor);
}

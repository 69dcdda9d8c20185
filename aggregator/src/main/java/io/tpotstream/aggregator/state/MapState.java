package io.tpotstream.aggregator.state;

import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import org.apache.kafka.common.utils.Bytes;

/** A {@link ByteState} in memory, for the offline {@code stats} command and tests. */
public final class MapState implements ByteState {
  private final NavigableMap<Bytes, byte[]> entries = new TreeMap<>();

  @Override
  public byte[] get(Bytes key) {
    return entries.get(key);
  }

  @Override
  public void put(Bytes key, byte[] value) {
    entries.put(key, value);
  }

  @Override
  public void delete(Bytes key) {
    entries.remove(key);
  }

  @Override
  public void range(Bytes from, Bytes to, BiConsumer<Bytes, byte[]> visitor) {
    entries.subMap(from, true, to, false).forEach(visitor);
  }

  @Override
  public void forEach(BiConsumer<Bytes, byte[]> visitor) {
    entries.forEach(visitor);
  }

  /** Number of entries. */
  public int size() {
    return entries.size();
  }
}

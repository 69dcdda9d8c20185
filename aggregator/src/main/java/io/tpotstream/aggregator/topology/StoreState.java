package io.tpotstream.aggregator.topology;

import io.tpotstream.aggregator.state.ByteState;
import java.util.function.BiConsumer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/** A Kafka Streams key-value store seen as the {@link ByteState} the window logic uses. */
final class StoreState implements ByteState {
  private final KeyValueStore<Bytes, byte[]> store;

  StoreState(KeyValueStore<Bytes, byte[]> store) {
    this.store = store;
  }

  @Override
  public byte[] get(Bytes key) {
    return store.get(key);
  }

  @Override
  public void put(Bytes key, byte[] value) {
    store.put(key, value);
  }

  @Override
  public void delete(Bytes key) {
    store.delete(key);
  }

  @Override
  public void range(Bytes from, Bytes to, BiConsumer<Bytes, byte[]> visitor) {
    try (KeyValueIterator<Bytes, byte[]> it = store.range(from, to)) {
      while (it.hasNext()) {
        KeyValue<Bytes, byte[]> entry = it.next();
        if (!entry.key.equals(to)) { // the store's range includes its upper bound
          visitor.accept(entry.key, entry.value);
        }
      }
    }
  }

  @Override
  public void forEach(BiConsumer<Bytes, byte[]> visitor) {
    try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
      while (it.hasNext()) {
        KeyValue<Bytes, byte[]> entry = it.next();
        visitor.accept(entry.key, entry.value);
      }
    }
  }
}

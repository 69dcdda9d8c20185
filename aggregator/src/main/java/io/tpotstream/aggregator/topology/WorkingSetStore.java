package io.tpotstream.aggregator.topology;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.internals.CacheFlushListener;
import org.apache.kafka.streams.state.internals.CachedStateStore;

/**
 * A changelogged in-memory key-value store whose processor keeps its working set in memory and
 * writes what changed into it right before every commit.
 *
 * <p>Why this hook: Kafka 4.4 calls {@link StateStore#commit} and {@link StateStore#flush} after
 * the transaction has committed (KIP-1035), too late for writes that must be in it. The hook Kafka
 * Streams runs inside every commit, before the changelog records are flushed and the offsets are
 * committed, is the one its own record cache uses: {@code CachedStateStore.flushCache()} (called
 * from {@code StreamTask.prepareCommit}). This store answers to it, so under exactly-once the
 * changelog always matches the offsets committed; restore and task migration go through the inner
 * store's changelog as for any store, and {@link #beforeCommit}'s owner reloads from it in {@code
 * init}. {@code AggregatorInstancesTest} (kill -9 during a run) would catch a Kafka Streams version
 * that stopped calling it. Interactive queries read what was last committed.
 */
final class WorkingSetStore
    implements StateStore, CachedStateStore<Bytes, byte[]>, ReadOnlyKeyValueStore<Bytes, byte[]> {
  private final KeyValueStore<Bytes, byte[]> inner;
  private Runnable beforeCommit;

  private WorkingSetStore(KeyValueStore<Bytes, byte[]> inner) {
    this.inner = inner;
  }

  /** The builder Streams uses: an in-memory store logged to {@code <app>-<name>-changelog}. */
  static StoreBuilder<WorkingSetStore> builder(String name) {
    return new Builder(name);
  }

  /** The store the working set is written to and loaded from. */
  KeyValueStore<Bytes, byte[]> inner() {
    return inner;
  }

  /** Runs {@code writer} inside every commit from now on (null: nothing to write). */
  void beforeCommit(Runnable writer) {
    this.beforeCommit = writer;
  }

  @Override
  public byte[] get(Bytes key) {
    return inner.get(key);
  }

  @Override
  public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
    return inner.range(from, to);
  }

  @Override
  public KeyValueIterator<Bytes, byte[]> all() {
    return inner.all();
  }

  @Override
  public long approximateNumEntries() {
    return inner.approximateNumEntries();
  }

  @Override
  public void flushCache() {
    Runnable writer = beforeCommit;
    if (writer != null) {
      writer.run();
    }
  }

  @Override
  public boolean setFlushListener(CacheFlushListener<Bytes, byte[]> listener, boolean sendOld) {
    return false;
  }

  @Override
  public void clearCache() {}

  @Override
  public String name() {
    return inner.name();
  }

  @Override
  public void init(StateStoreContext context, StateStore root) {
    beforeCommit = null;
    inner.init(context, root);
  }

  @Override
  public void flush() {
    inner.flush();
  }

  @Override
  public void commit(Map<TopicPartition, Long> changelogOffsets) {
    inner.commit(changelogOffsets);
  }

  @Override
  public Long committedOffset(TopicPartition partition) {
    return inner.committedOffset(partition);
  }

  @Override
  public boolean managesOffsets() {
    return inner.managesOffsets();
  }

  @Override
  public void close() {
    beforeCommit = null;
    inner.close();
  }

  @Override
  public boolean persistent() {
    return inner.persistent();
  }

  @Override
  public boolean isOpen() {
    return inner.isOpen();
  }

  @Override
  public <R> QueryResult<R> query(Query<R> query, PositionBound bound, QueryConfig config) {
    return inner.query(query, bound, config);
  }

  @Override
  public Position getPosition() {
    return inner.getPosition();
  }

  @Override
  public long approximateNumUncommittedBytes() {
    return inner.approximateNumUncommittedBytes();
  }

  private static final class Builder implements StoreBuilder<WorkingSetStore> {
    private final String name;

    Builder(String name) {
      this.name = name;
    }

    @Override
    public StoreBuilder<WorkingSetStore> withCachingEnabled() {
      throw new UnsupportedOperationException("the working set is the cache");
    }

    @Override
    public StoreBuilder<WorkingSetStore> withCachingDisabled() {
      return this;
    }

    @Override
    public StoreBuilder<WorkingSetStore> withLoggingEnabled(Map<String, String> config) {
      return this;
    }

    @Override
    public StoreBuilder<WorkingSetStore> withLoggingDisabled() {
      throw new UnsupportedOperationException("the working set is restored from its changelog");
    }

    @Override
    public WorkingSetStore build() {
      return new WorkingSetStore(
          Stores.keyValueStoreBuilder(
                  Stores.inMemoryKeyValueStore(name), Serdes.Bytes(), Serdes.ByteArray())
              .withCachingDisabled()
              .withLoggingEnabled(Map.of())
              .build());
    }

    @Override
    public Map<String, String> logConfig() {
      return Map.of();
    }

    @Override
    public boolean loggingEnabled() {
      return true;
    }

    @Override
    public String name() {
      return name;
    }
  }
}

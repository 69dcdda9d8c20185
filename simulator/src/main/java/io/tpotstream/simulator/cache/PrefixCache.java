package io.tpotstream.simulator.cache;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The simulator's prefix cache: the keys of at most {@code capacityBlocks} prompt blocks ({@link
 * PromptBlocks}), least recently used evicted first. A request finds the leading run of its blocks
 * that the cache holds (its cached prefix: a block after the first one missing never counts, as a
 * server cannot reuse KV entries past a gap), then all of its blocks become the most recently used,
 * its first block most of all (vLLM frees a request's blocks last one first), so that the tails of
 * prompts are evicted before the beginnings they share.
 *
 * <p>Bounded by construction: never more than {@code capacityBlocks} keys (a few dozen bytes each:
 * the default 65,536 hold about 5 MB). The event loops share one cache: each request's look-up and
 * update is one step under its lock.
 */
public final class PrefixCache {
  /** Blocks held by default: 1,048,576 tokens in blocks of 16, a few hundred prompts of 3,000. */
  public static final int DEFAULT_BLOCKS = 65_536;

  /** The most blocks a cache may hold (16 million keys, over a gigabyte of heap). */
  public static final int MAX_BLOCKS = 1 << 24;

  private final int capacityBlocks;
  private final LinkedHashMap<Long, Boolean> blocks;
  private long evicted;

  /**
   * @param capacityBlocks the most blocks held, 1 to {@link #MAX_BLOCKS}
   */
  public PrefixCache(int capacityBlocks) {
    if (capacityBlocks < 1 || capacityBlocks > MAX_BLOCKS) {
      throw new IllegalArgumentException(
          "a prefix cache holds 1 to " + MAX_BLOCKS + " blocks, got " + capacityBlocks);
    }
    this.capacityBlocks = capacityBlocks;
    this.blocks =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
            if (size() > PrefixCache.this.capacityBlocks) {
              evicted++;
              return true;
            }
            return false;
          }
        };
  }

  /**
   * How many of {@code keys}' leading blocks the cache held; then holds them (the first {@code
   * capacityBlocks} of them: a prompt longer than the cache keeps its beginning), the first as the
   * most recently used. The blocks that make room are other prompts' least recently used ones,
   * never the request's own.
   */
  public synchronized int lookUpAndKeep(long[] keys) {
    int leading = 0;
    while (leading < keys.length && blocks.containsKey(keys[leading])) {
      leading++;
    }
    int kept = Math.min(keys.length, capacityBlocks);
    for (int i = 0; i < kept; i++) {
      blocks.get(keys[i]); // a held block becomes recent before any other is evicted
    }
    for (int i = kept - 1; i >= 0; i--) {
      blocks.put(keys[i], Boolean.TRUE); // new ones added, then each moved to the recent end
    }
    return leading;
  }

  public int capacityBlocks() {
    return capacityBlocks;
  }

  /** Blocks held now. */
  public synchronized int heldBlocks() {
    return blocks.size();
  }

  /** Blocks evicted to make room since the cache was made (or last {@link #clear}ed). */
  public synchronized long evictedBlocks() {
    return evicted;
  }

  /** Forgets every block (the simulator's own warm-up leaves none behind). */
  public synchronized void clear() {
    blocks.clear();
    evicted = 0;
  }
}

package io.tpotstream.simulator.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class PrefixCacheTest {
  /** Blocks of 16 tokens: 64 characters each. */
  private static final int BLOCK = 16;

  private static long[] blocks(String model, String... pieces) {
    PromptBlocks blocks = new PromptBlocks(model, BLOCK);
    for (String piece : pieces) {
      blocks.add(piece);
    }
    return blocks.keys();
  }

  /** {@code n} characters of {@code c}. */
  private static String text(char c, int n) {
    return String.valueOf(c).repeat(n);
  }

  @Test
  void aPromptHasOneKeyPerWholeBlockAndTheRestIsNotCached() {
    assertEquals(0, blocks("m", text('a', 63)).length);
    assertEquals(1, blocks("m", text('a', 64)).length);
    assertEquals(3, blocks("m", text('a', 200)).length, "192 of 200 characters");
    assertEquals(
        Arrays.toString(blocks("m", text('a', 200))),
        Arrays.toString(blocks("m", text('a', 70), text('a', 130))),
        "the pieces of a prompt are one text");
  }

  @Test
  void twoPromptsShareTheKeysOfTheWholeBlocksOfTheirCommonBeginning() {
    String shared = text('s', 130); // two whole blocks and 2 characters
    long[] first = blocks("m", shared, text('x', 70));
    long[] second = blocks("m", shared, text('y', 70));
    assertEquals(3, first.length);
    assertEquals(3, second.length);
    assertArrayEquals(Arrays.copyOf(first, 2), Arrays.copyOf(second, 2));
    assertEquals(false, first[2] == second[2]);

    PrefixCache cache = new PrefixCache(100);
    assertEquals(0, cache.lookUpAndKeep(first));
    assertEquals(2, cache.lookUpAndKeep(second), "2 whole blocks: 32 of its tokens cached");
    assertEquals(3, cache.lookUpAndKeep(first), "all of a prompt seen before");
    assertEquals(4, cache.heldBlocks());
  }

  @Test
  void onlyASharedPrefixHitsNotTheSameTextAfterADifferentBeginning() {
    String tail = text('t', 128);
    long[] first = blocks("m", text('a', 64), tail);
    long[] second = blocks("m", text('b', 64), tail);
    for (long key : second) {
      for (long other : first) {
        assertEquals(false, key == other, "a block's key carries the blocks before it");
      }
    }
    PrefixCache cache = new PrefixCache(100);
    cache.lookUpAndKeep(first);
    assertEquals(0, cache.lookUpAndKeep(second));
  }

  @Test
  void blocksAfterAMissingOneDoNotCount() {
    long[] prompt = blocks("m", text('a', 64 * 4));
    PrefixCache cache = new PrefixCache(100);
    // the cache holds the prompt's blocks 1 to 3 but not its first
    cache.lookUpAndKeep(Arrays.copyOfRange(prompt, 1, 4));
    assertEquals(0, cache.lookUpAndKeep(prompt));
  }

  @Test
  void modelsShareNoBlock() {
    PrefixCache cache = new PrefixCache(100);
    cache.lookUpAndKeep(blocks("model-a", text('a', 256)));
    assertEquals(0, cache.lookUpAndKeep(blocks("model-b", text('a', 256))));
    assertEquals(4, cache.lookUpAndKeep(blocks("model-a", text('a', 256))));
  }

  @Test
  void theLeastRecentlyUsedBlocksAreEvictedFirst() {
    long[] p1 = blocks("m", text('1', 128));
    long[] p2 = blocks("m", text('2', 128));
    long[] p3 = blocks("m", text('3', 128));
    PrefixCache cache = new PrefixCache(4);
    cache.lookUpAndKeep(p1);
    cache.lookUpAndKeep(p2);
    assertEquals(2, cache.lookUpAndKeep(p1), "full, nothing evicted: p1 is now the most recent");
    assertEquals(0, cache.evictedBlocks());

    assertEquals(0, cache.lookUpAndKeep(p3)); // room for p3: p2's blocks go
    assertEquals(2, cache.evictedBlocks());
    assertEquals(4, cache.heldBlocks());
    assertEquals(2, cache.lookUpAndKeep(p1));
    assertEquals(2, cache.lookUpAndKeep(p3));
    assertEquals(0, cache.lookUpAndKeep(p2), "evicted");
    assertEquals(4, cache.evictedBlocks());
  }

  @Test
  void aRequestNeverEvictsItsOwnCachedBlocks() {
    long[] shared = blocks("m", text('s', 64 * 3));
    long[] other = blocks("m", text('o', 64));
    long[] longer = blocks("m", text('s', 64 * 3), text('y', 64));
    PrefixCache cache = new PrefixCache(4);
    cache.lookUpAndKeep(shared);
    cache.lookUpAndKeep(other); // full: the shared blocks are now the least recently used
    assertEquals(3, cache.lookUpAndKeep(longer));
    assertEquals(1, cache.evictedBlocks(), "room for its last block: the other prompt's went");
    assertEquals(3, cache.lookUpAndKeep(shared));
    assertEquals(0, cache.lookUpAndKeep(other));
  }

  @Test
  void thePromptTailIsEvictedBeforeTheBeginningItShares() {
    long[] prompt = blocks("m", text('p', 64 * 3));
    PrefixCache cache = new PrefixCache(3);
    cache.lookUpAndKeep(prompt);
    cache.lookUpAndKeep(blocks("m", text('q', 64))); // one block more than room: one goes
    assertEquals(1, cache.evictedBlocks());
    assertEquals(2, cache.lookUpAndKeep(prompt), "its third block went, its first two stayed");
  }

  @Test
  void aCacheHoldsAtLeastOneBlockAndAtMostItsLimit() {
    assertThrows(IllegalArgumentException.class, () -> new PrefixCache(0));
    assertThrows(IllegalArgumentException.class, () -> new PrefixCache(PrefixCache.MAX_BLOCKS + 1));
    PrefixCache cache = new PrefixCache(5);
    cache.lookUpAndKeep(blocks("m", text('a', 64 * 40)));
    assertEquals(5, cache.heldBlocks(), "a prompt longer than the cache keeps its first blocks");
    assertEquals(0, cache.evictedBlocks(), "and evicts none of them for the others");
    assertEquals(5, cache.lookUpAndKeep(blocks("m", text('a', 64 * 40))));
  }
}

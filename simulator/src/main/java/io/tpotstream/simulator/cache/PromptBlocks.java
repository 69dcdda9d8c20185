package io.tpotstream.simulator.cache;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The keys of a prompt's whole blocks, as a server with prefix caching keys its KV-cache blocks:
 * each block's key hashes its text and the key of the block before it, so two prompts share a key
 * exactly where they share the whole text up to the end of that block (a shared prefix), and the
 * same text after different beginnings does not. A token is {@link #CHARS_PER_TOKEN} characters of
 * the prompt's text, as the simulator counts {@code prompt_tokens}; the text after the last whole
 * block is not cached. The chain starts from the model's name: models share no block.
 *
 * <p>64-bit keys (FNV-1a over the characters, then a SplitMix64 finaliser per block): two different
 * blocks share a key with a chance of about n²/2⁶⁵ among n blocks held, one in 10⁹ for 200,000.
 */
public final class PromptBlocks {
  /** Characters a token, the simulator's estimate of {@code prompt_tokens} (rounded up). */
  public static final int CHARS_PER_TOKEN = 4;

  private static final long FNV_OFFSET = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;

  private final int blockChars;
  private long hash;
  private int inBlock;
  private long[] keys = new long[16];
  private int count;

  /** The blocks of a prompt to {@code model}, {@code blockTokens} tokens each. */
  public PromptBlocks(String model, int blockTokens) {
    if (blockTokens < 1) {
      throw new IllegalArgumentException("blockTokens must be >= 1, got " + blockTokens);
    }
    this.blockChars = blockTokens * CHARS_PER_TOKEN;
    long h = FNV_OFFSET;
    for (byte b : model.getBytes(StandardCharsets.UTF_8)) {
      h = (h ^ (b & 0xff)) * FNV_PRIME;
    }
    this.hash = mix(h);
  }

  /** Appends the next piece of the prompt's text. */
  public PromptBlocks add(CharSequence text) {
    for (int i = 0; i < text.length(); i++) {
      hash = (hash ^ text.charAt(i)) * FNV_PRIME;
      if (++inBlock == blockChars) {
        hash = mix(hash);
        if (count == keys.length) {
          keys = Arrays.copyOf(keys, count * 2);
        }
        keys[count++] = hash;
        inBlock = 0;
      }
    }
    return this;
  }

  /** The keys of the whole blocks so far, first block first. */
  public long[] keys() {
    return Arrays.copyOf(keys, count);
  }

  /** SplitMix64's finaliser: every input bit moves every output bit. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}

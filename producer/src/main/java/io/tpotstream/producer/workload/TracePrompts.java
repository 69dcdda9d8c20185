package io.tpotstream.producer.workload;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Prompt texts of a trace's lengths that share leading blocks exactly where its {@code hash_ids}
 * say. A token is a space and a three-letter word ({@link SyntheticPrompts}' scheme), four
 * characters, so a prompt of n tokens is 4n characters: n tokens for the usual BPE tokenizers and
 * exactly n for a server that counts four characters a token (the simulator). Block i of a request
 * is the text of its hash id i, drawn from the id and the block size alone: the same id is the same
 * text in every request and every run, wherever it stands; the last block may be cut at the
 * prompt's length. Past its hash ids a prompt is drawn from a number unique to the request, so
 * nothing else is shared. Not thread-safe.
 */
public final class TracePrompts {
  /** The block texts kept for reuse, in characters (a shared prefix is drawn once). */
  private static final int KEPT_CHARS = 8 << 20;

  private final int blockSize;
  private final Map<Long, String> blocks;

  /** Prompts of blocks of {@code blockSize} tokens. */
  public TracePrompts(int blockSize) {
    this.blockSize = blockSize;
    int kept = Math.max(1, KEPT_CHARS / (blockSize * SyntheticPrompts.CHARS_PER_TOKEN));
    this.blocks =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Long, String> eldest) {
            return size() > kept;
          }
        };
  }

  /**
   * The prompt of {@code r}: its {@code inputTokens} tokens, block i the text of hash id i, the
   * rest drawn from {@code unique}.
   */
  public String prompt(TraceRequest r, long unique) {
    int tokens = r.inputTokens();
    StringBuilder text = new StringBuilder(tokens * SyntheticPrompts.CHARS_PER_TOKEN);
    long[] ids = r.hashIds();
    int covered = 0;
    for (int i = 0; i < ids.length && covered < tokens; i++) {
      String block = blocks.computeIfAbsent(ids[i], id -> block(id, blockSize));
      int take = Math.min(blockSize, tokens - covered);
      text.append(block, 0, take * SyntheticPrompts.CHARS_PER_TOKEN);
      covered += take;
    }
    if (covered < tokens) {
      SyntheticPrompts.appendTokens(
          text, tokens - covered, new SplittableRandom(unique * 0xBF58476D1CE4E5B9L + 1));
    }
    return text.toString();
  }

  /** The text of hash id {@code id} in blocks of {@code blockSize} tokens. */
  static String block(long id, int blockSize) {
    StringBuilder text = new StringBuilder(blockSize * SyntheticPrompts.CHARS_PER_TOKEN);
    SyntheticPrompts.appendTokens(
        text, blockSize, new SplittableRandom(id * 0x9E3779B97F4A7C15L ^ blockSize));
    return text.toString();
  }
}

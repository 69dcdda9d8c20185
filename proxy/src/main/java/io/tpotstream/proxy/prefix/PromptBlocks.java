package io.tpotstream.proxy.prefix;

import io.tpotstream.common.event.TokenEventBounds;
import io.tpotstream.common.trace.TraceLine;
import java.util.ArrayList;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.ShortBufferException;

/**
 * The keyed hashes of a prompt's leading blocks, made as its text passes and never kept: the
 * canonical text (below) is cut into blocks of {@link #BLOCK_BYTES}, and each block's hash is
 * HMAC-SHA256 under the proxy's {@link PrefixHashKey} of the previous block's hash and the block,
 * truncated to its first 64 bits; so two prompts have the same hash at a position exactly when they
 * are the same text up to the end of that block (a shared prefix), and nothing else can be learnt
 * from a hash without the key.
 *
 * <p>The canonical text: each text part of a message (a string {@code content}, or the {@code text}
 * of each part of a list) in UTF-8 followed by a unit separator (0x1F), then, at the message's end,
 * its role and a record separator (0x1E): the same bytes whatever the order of a message's fields.
 * A completion's {@code prompt} is a message without a role. An Anthropic {@code system} (a string
 * or text blocks) is its own text, cut into blocks and hashed alone (its fields may come after the
 * messages, and the body is never held); when there is one, the messages' hashes are then each
 * hashed again with the system's last, and follow the system's: the ids stay equal exactly where
 * the system and the messages up to that block are.
 *
 * <p>Bounded whatever the prompt: one block of bytes, at most {@link
 * TokenEventBounds#MAX_PREFIX_HASHES} hashes kept per part (the rest only counted, not hashed). One
 * per request; runs on its event loop.
 */
public final class PromptBlocks {
  /**
   * Bytes per block: Mooncake's block of {@link TraceLine#BLOCK_SIZE_TOKENS} tokens at about four
   * bytes a token (English text; code and other scripts take fewer tokens a byte or more).
   */
  public static final int BLOCK_BYTES = 4 * TraceLine.BLOCK_SIZE_TOKENS;

  private static final byte UNIT_SEPARATOR = 0x1F;
  private static final byte RECORD_SEPARATOR = 0x1E;
  private static final byte BLOCK = 0;
  private static final byte AFTER_SYSTEM = 1;

  /** The hashes of a prompt and how many blocks it had (more than the hashes when cut). */
  public record Prefix(List<Long> hashes, int blocks) {
    public Prefix {
      hashes = List.copyOf(hashes);
    }
  }

  /** One chain of blocks: the system's or the messages'. */
  private static final class Chain {
    final List<Long> hashes = new ArrayList<>();
    long blocks;
    long last;
  }

  private final PrefixHashKey key;
  private final Chain system = new Chain();
  private final Chain messages = new Chain();
  private Chain current;
  private byte[] block;
  private int filled;
  private final byte[] word = new byte[8];
  private final byte[] digest = new byte[32];

  public PromptBlocks(PrefixHashKey key) {
    this.key = key;
  }

  /** Text of the system (Anthropic's top-level {@code system}). */
  public void systemText(char[] chars, int offset, int length) {
    in(system);
    utf8(chars, offset, length);
    put(UNIT_SEPARATOR);
  }

  /** One text part of the current message (or of a completion's prompt). */
  public void messageText(char[] chars, int offset, int length) {
    in(messages);
    utf8(chars, offset, length);
    put(UNIT_SEPARATOR);
  }

  /** The end of a message: its role (null: none, as a completion's prompt). */
  public void messageEnd(String role) {
    in(messages);
    if (role != null) {
      utf8(role.toCharArray(), 0, role.length());
    }
    put(RECORD_SEPARATOR);
  }

  /** The hashes, once the body was read whole; null when it held no text at all. */
  public Prefix finish() {
    in(null);
    long blocks = system.blocks + messages.blocks;
    if (blocks == 0) {
      return null;
    }
    List<Long> hashes = new ArrayList<>(system.hashes);
    int most = TokenEventBounds.MAX_PREFIX_HASHES;
    for (int i = 0; i < messages.hashes.size() && hashes.size() < most; i++) {
      long h = messages.hashes.get(i);
      hashes.add(system.blocks == 0 ? h : hash(AFTER_SYSTEM, system.last, null, 0, h));
    }
    block = null;
    return new Prefix(hashes, (int) Math.min(Integer.MAX_VALUE, blocks));
  }

  /** Makes {@code chain} the one the next bytes go to, ending the open block of another. */
  private void in(Chain chain) {
    if (current != chain) {
      if (filled > 0) {
        endBlock();
      }
      current = chain;
    }
  }

  private void put(byte b) {
    if (block == null) {
      block = new byte[BLOCK_BYTES];
    }
    block[filled++] = b;
    if (filled == BLOCK_BYTES) {
      endBlock();
    }
  }

  /** Appends {@code chars} in UTF-8 (a lone surrogate as '?', as Java's encoder writes it). */
  private void utf8(char[] chars, int offset, int length) {
    int end = offset + length;
    for (int i = offset; i < end; i++) {
      char c = chars[i];
      if (c < 0x80) {
        put((byte) c);
      } else if (c < 0x800) {
        put((byte) (0xC0 | (c >> 6)));
        put((byte) (0x80 | (c & 0x3F)));
      } else if (Character.isHighSurrogate(c)
          && i + 1 < end
          && Character.isLowSurrogate(chars[i + 1])) {
        int cp = Character.toCodePoint(c, chars[++i]);
        put((byte) (0xF0 | (cp >> 18)));
        put((byte) (0x80 | ((cp >> 12) & 0x3F)));
        put((byte) (0x80 | ((cp >> 6) & 0x3F)));
        put((byte) (0x80 | (cp & 0x3F)));
      } else if (Character.isSurrogate(c)) {
        put((byte) '?');
      } else {
        put((byte) (0xE0 | (c >> 12)));
        put((byte) (0x80 | ((c >> 6) & 0x3F)));
        put((byte) (0x80 | (c & 0x3F)));
      }
    }
  }

  /** Hashes the open block into the current chain (past the bound, only counts it). */
  private void endBlock() {
    Chain chain = current;
    chain.blocks++;
    if (chain.hashes.size() < TokenEventBounds.MAX_PREFIX_HASHES) {
      chain.last = hash(BLOCK, chain.last, block, filled, 0);
      chain.hashes.add(chain.last);
    }
    filled = 0;
  }

  /**
   * HMAC of a domain byte, {@code previous}, then {@code bytes[0, length)} (a block) or else {@code
   * next} (a message hash after the system's last), truncated to 64 bits.
   */
  private long hash(byte domain, long previous, byte[] bytes, int length, long next) {
    Mac mac = key.mac();
    mac.update(domain);
    mac.update(longBytes(previous));
    if (bytes != null) {
      mac.update(bytes, 0, length);
    } else {
      mac.update(longBytes(next));
    }
    try {
      mac.doFinal(digest, 0); // also resets it for the next use on this loop
    } catch (ShortBufferException e) {
      throw new IllegalStateException("HMAC-SHA256 gives 32 bytes", e);
    }
    long h = 0;
    for (int i = 0; i < 8; i++) {
      h = (h << 8) | (digest[i] & 0xFF);
    }
    return h;
  }

  private byte[] longBytes(long value) {
    for (int i = 7; i >= 0; i--) {
      word[i] = (byte) value;
      value >>>= 8;
    }
    return word;
  }
}

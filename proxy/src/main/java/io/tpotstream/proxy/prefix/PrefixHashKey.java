package io.tpotstream.proxy.prefix;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The key of the proxy's prefix hashes ({@code --capture-prefix-hashes}): random for each start of
 * the proxy, or the bytes of {@code --prefix-hash-key-file} so that several proxies, and one proxy
 * across restarts, give the same text the same hashes. A secret: whoever holds it can test guesses
 * of a prompt against the hashes. It is never printed, logged or published (this object prints as
 * {@code ***}); only the file's name is shown. Each event loop keeps its own {@link Mac} under it.
 */
public final class PrefixHashKey {
  /** The fewest bytes of a key: 128 bits. */
  public static final int MIN_BYTES = 16;

  /** The most bytes of a key file read (a key is a few dozen; anything larger is another file). */
  public static final int MAX_BYTES = 4_096;

  private static final String ALGORITHM = "HmacSHA256";

  private final SecretKeySpec key;
  private final String origin;
  private final ThreadLocal<Mac> macs;

  private PrefixHashKey(byte[] bytes, String origin) {
    this.key = new SecretKeySpec(bytes, ALGORITHM);
    Arrays.fill(bytes, (byte) 0);
    this.origin = origin;
    this.macs = ThreadLocal.withInitial(this::newMac);
  }

  /** A key of 32 random bytes, for this start of the proxy only. */
  public static PrefixHashKey random() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return new PrefixHashKey(bytes, "a random key of this start (ids comparable within it only)");
  }

  /**
   * The key made of {@code file}'s bytes, exactly as they are (e.g. {@code head -c 32 /dev/urandom
   * > FILE}, or {@code openssl rand -hex 32 > FILE}: its text, newline included).
   *
   * @throws IllegalArgumentException naming the file (never its content) and what to check
   */
  public static PrefixHashKey fromFile(Path file) {
    String flag = "--prefix-hash-key-file " + file;
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      bytes = in.readNBytes(MAX_BYTES + 1);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(flag + ": no such file, check the path");
    } catch (AccessDeniedException e) {
      throw new IllegalArgumentException(flag + ": cannot be read, check its permissions");
    } catch (IOException e) {
      throw new IllegalArgumentException(
          flag + ": cannot be read (" + e.getClass().getSimpleName() + "): is it a file?");
    }
    if (bytes.length > MAX_BYTES) {
      throw new IllegalArgumentException(
          flag
              + ": more than "
              + MAX_BYTES
              + " bytes, not a key: is it the right file? A key file holds "
              + MIN_BYTES
              + " to "
              + MAX_BYTES
              + " bytes (e.g. head -c 32 /dev/urandom > FILE)");
    }
    if (bytes.length < MIN_BYTES) {
      throw new IllegalArgumentException(
          flag
              + ": "
              + bytes.length
              + " bytes, fewer than the "
              + MIN_BYTES
              + " a key needs (e.g. head -c 32 /dev/urandom > FILE)");
    }
    return new PrefixHashKey(bytes, "the key in " + file);
  }

  /** What the key is, for the start line, without a byte of it. */
  public String origin() {
    return origin;
  }

  /** This thread's HMAC-SHA256 under the key (an event loop's own; reset after each use). */
  Mac mac() {
    return macs.get();
  }

  private Mac newMac() {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JVM has no " + ALGORITHM, e);
    }
  }

  @Override
  public String toString() {
    return "PrefixHashKey[***]";
  }
}

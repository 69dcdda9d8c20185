package io.tpotstream.proxy.prefix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A key file is read within its bounds, and no message or string ever shows a byte of it. */
class PrefixHashKeyTest {
  private static final String SECRET = "s3cret-key-material-0123456789abcdef";

  @TempDir Path dir;

  private String refusal(Path file) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PrefixHashKey.fromFile(file));
    assertFalse(e.getMessage().contains("s3cret"), e.getMessage());
    return e.getMessage();
  }

  @Test
  void aFileOutsideItsBoundsIsRefusedNamingTheFileAndWhatToDo() throws Exception {
    Path missing = dir.resolve("missing.key");
    assertEquals(
        "--prefix-hash-key-file " + missing + ": no such file, check the path", refusal(missing));
    Path shortKey = Files.writeString(dir.resolve("short.key"), "s3cret-15-bytes");
    assertEquals(
        "--prefix-hash-key-file "
            + shortKey
            + ": 15 bytes, fewer than the 16 a key needs (e.g. head -c 32 /dev/urandom > FILE)",
        refusal(shortKey));
    Path large =
        Files.writeString(dir.resolve("large.key"), "s3cret".repeat(PrefixHashKey.MAX_BYTES));
    assertEquals(
        "--prefix-hash-key-file "
            + large
            + ": more than 4096 bytes, not a key: is it the right file? A key file holds 16 to"
            + " 4096 bytes (e.g. head -c 32 /dev/urandom > FILE)",
        refusal(large));
    assertEquals(
        "--prefix-hash-key-file " + dir + ": cannot be read (IOException): is it a file?",
        refusal(dir));
  }

  @Test
  void aKeyPrintsAsMaskedAndSaysOnlyWhereItCameFrom() throws Exception {
    Path file = Files.write(dir.resolve("proxy.key"), SECRET.getBytes(StandardCharsets.UTF_8));
    PrefixHashKey key = PrefixHashKey.fromFile(file);
    assertEquals("PrefixHashKey[***]", key.toString());
    assertEquals("the key in " + file, key.origin());
    assertEquals(
        "a random key of this start (ids comparable within it only)",
        PrefixHashKey.random().origin());
  }
}

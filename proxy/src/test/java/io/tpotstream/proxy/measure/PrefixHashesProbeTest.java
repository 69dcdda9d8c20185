package io.tpotstream.proxy.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.Json;
import io.tpotstream.common.event.TokenEventBounds;
import io.tpotstream.proxy.prefix.PrefixHashKey;
import io.tpotstream.proxy.prefix.PromptBlocks;
import io.vertx.core.buffer.Buffer;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The prompt's block hashes as the probe makes them from a body passing in pieces: the exact
 * HMAC-SHA256 chain of the canonical text's blocks (computed here independently), equal ids exactly
 * as far as two prompts share their text, every id changed by another key, the same ids whatever
 * the order of fields and the cuts of the body, and bounded output for huge and odd bodies.
 */
class PrefixHashesProbeTest {
  private static final byte[] KEY_BYTES =
      "a key of the tests, 32 bytes....".getBytes(StandardCharsets.US_ASCII);

  @TempDir Path dir;

  private PrefixHashKey key(byte[] bytes) throws Exception {
    Path file = Files.write(dir.resolve("key-" + bytes.length + "-" + bytes[0]), bytes);
    return PrefixHashKey.fromFile(file);
  }

  private static RequestProbe.Facts probe(PrefixHashKey key, String body, int pieceBytes) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    RequestProbe probe = new RequestProbe(key);
    for (int i = 0; i < bytes.length; i += pieceBytes) {
      probe.feed(Buffer.buffer().appendBytes(bytes, i, Math.min(pieceBytes, bytes.length - i)));
    }
    return probe.read();
  }

  private static List<Long> hashes(PrefixHashKey key, String body) {
    PromptBlocks.Prefix prefix = probe(key, body, 4096).prefix();
    return prefix == null ? null : prefix.hashes();
  }

  /** An OpenAI chat body with these (role, content) messages. */
  private static String chat(String... roleAndContent) throws Exception {
    List<Map<String, String>> messages = new ArrayList<>();
    for (int i = 0; i < roleAndContent.length; i += 2) {
      messages.add(Map.of("role", roleAndContent[i], "content", roleAndContent[i + 1]));
    }
    return "{\"model\":\"m\",\"stream\":true,\"messages\":"
        + Json.MAPPER.writeValueAsString(messages)
        + "}";
  }

  /** {@code n} characters of words that appear nowhere else, differing by {@code seed}. */
  static String text(int n, int seed) {
    StringBuilder s = new StringBuilder();
    Random random = new Random(seed);
    while (s.length() < n) {
      s.append("w").append(random.nextInt(1_000_000)).append(' ');
    }
    return s.substring(0, n);
  }

  /** The chain computed independently: HMAC(key, 0x00 ‖ previous ‖ block), first 8 bytes. */
  private static List<Long> expected(byte[] key, byte[] canonical) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key, "HmacSHA256"));
    List<Long> hashes = new ArrayList<>();
    long previous = 0;
    for (int at = 0; at < canonical.length; at += PromptBlocks.BLOCK_BYTES) {
      mac.update((byte) 0);
      mac.update(java.nio.ByteBuffer.allocate(8).putLong(previous).array());
      mac.update(canonical, at, Math.min(PromptBlocks.BLOCK_BYTES, canonical.length - at));
      previous = java.nio.ByteBuffer.wrap(mac.doFinal()).getLong();
      hashes.add(previous);
    }
    return hashes;
  }

  /** A message's canonical bytes: its text, 0x1F, its role, 0x1E. */
  private static void message(ByteArrayOutputStream into, String role, String content) {
    into.writeBytes(content.getBytes(StandardCharsets.UTF_8));
    into.write(0x1F);
    into.writeBytes(role.getBytes(StandardCharsets.UTF_8));
    into.write(0x1E);
  }

  @Test
  void theHashesAreTheKeyedChainOfTheCanonicalTextsBlocks() throws Exception {
    String system = text(3_000, 1);
    String user = "naïve café, 東京 and an emoji \uD83D\uDE00 " + text(2_500, 2);
    ByteArrayOutputStream canonical = new ByteArrayOutputStream();
    message(canonical, "system", system);
    message(canonical, "user", user);
    List<Long> expected = expected(KEY_BYTES, canonical.toByteArray());
    assertEquals(3, expected.size(), "5,5xx bytes: three blocks");
    PromptBlocks.Prefix prefix =
        probe(key(KEY_BYTES), chat("system", system, "user", user), 7).prefix();
    assertEquals(new PromptBlocks.Prefix(expected, 3), prefix);
  }

  @Test
  void sharedLeadingBlocksHaveEqualIdsAndADifferingBlockChangesEveryIdFromThereOn()
      throws Exception {
    PrefixHashKey key = key(KEY_BYTES);
    // each message exactly one block: text + 0x1F + role + 0x1E = 2,048 bytes
    String system = text(2_048 - 8, 3);
    String user1 = text(2_048 - 6, 4);
    String answer = text(2_048 - 11, 5);
    String user2 = text(2_048 - 6, 6);
    List<Long> first = hashes(key, chat("system", system, "user", user1));
    List<Long> second =
        hashes(key, chat("system", system, "user", user1, "assistant", answer, "user", user2));
    assertEquals(2, first.size());
    assertEquals(4, second.size());
    assertEquals(first, second.subList(0, 2), "the second turn shares the first's blocks");

    // one character changed in the middle of the user's message: block 0 equal, block 1 not
    char[] changed = user1.toCharArray();
    changed[1_000] = changed[1_000] == 'x' ? 'y' : 'x';
    List<Long> other =
        hashes(
            key,
            chat(
                "system", system, "user", new String(changed), "assistant", answer, "user", user2));
    assertEquals(second.get(0), other.get(0));
    for (int i = 1; i < 4; i++) {
      assertNotEquals(second.get(i), other.get(i), "block " + i + " and after: a new chain");
    }
    // the same words under another role are another text
    assertNotEquals(first.get(1), hashes(key, chat("system", system, "assistant", user1)).get(1));
  }

  @Test
  void anotherKeyChangesEveryId() throws Exception {
    String body = chat("system", text(5_000, 7), "user", text(5_000, 8));
    List<Long> one = hashes(key(KEY_BYTES), body);
    byte[] otherKey = KEY_BYTES.clone();
    otherKey[31] ^= 1;
    List<Long> two = hashes(key(otherKey), body);
    assertEquals(5, one.size());
    Set<Long> common = new HashSet<>(one);
    common.retainAll(two);
    assertEquals(Set.of(), common);
    assertEquals(one, hashes(key(KEY_BYTES.clone()), body), "the same key, the same ids");
  }

  @Test
  void theOrderOfFieldsAndTheCutsOfTheBodyChangeNothing() throws Exception {
    PrefixHashKey key = key(KEY_BYTES);
    String system = text(3_000, 9);
    String user = text(3_000, 10);
    String q = Json.MAPPER.writeValueAsString(user);
    String s = Json.MAPPER.writeValueAsString(system);
    // Anthropic: system before or after the messages, content as a string or text blocks
    String before =
        "{\"model\":\"m\",\"system\":"
            + s
            + ",\"messages\":[{\"role\":\"user\",\"content\":"
            + q
            + "}],\"stream\":true}";
    String after =
        "{\"max_tokens\":9,\"messages\":[{\"content\":[{\"type\":\"text\",\"text\":"
            + q
            + "}],\"role\":\"user\"}],\"model\":\"m\",\"stream\":true,\"system\":[{\"type\":\"text\","
            + "\"text\":"
            + s
            + "}]}";
    List<Long> reference = hashes(key, before);
    // the system: 3,001 bytes, two blocks; the message after them: two more
    assertEquals(4, reference.size());
    assertEquals(reference, hashes(key, after));
    for (int piece : new int[] {1, 3, 64, 1_000}) {
      assertEquals(reference, probe(key, after, piece).prefix().hashes(), "pieces of " + piece);
    }
    // the system's ids come first and do not depend on the messages
    String otherMessages = before.replace(q, Json.MAPPER.writeValueAsString(text(3_000, 11)));
    List<Long> other = hashes(key, otherMessages);
    assertEquals(reference.subList(0, 2), other.subList(0, 2));
    assertNotEquals(reference.get(2), other.get(2));
    // a completion's prompt is a message without a role
    assertEquals(
        hashes(key, "{\"prompt\":" + q + ",\"stream\":true}"),
        hashes(key, "{\"stream\":true,\"prompt\":[" + q + "]}"));
  }

  @Test
  void aHugePromptKeepsItsFirstHashesAndCountsEveryBlock() throws Exception {
    int blocks = TokenEventBounds.MAX_PREFIX_HASHES + 476; // 1,500 blocks, about 3 MB
    String huge = "x".repeat(blocks * PromptBlocks.BLOCK_BYTES - 6);
    PromptBlocks.Prefix prefix = probe(key(KEY_BYTES), chat("user", huge), 65_536).prefix();
    assertEquals(TokenEventBounds.MAX_PREFIX_HASHES, prefix.hashes().size());
    assertEquals(blocks, prefix.blocks());
    assertEquals(TokenEventBounds.MAX_PREFIX_HASHES, new HashSet<>(prefix.hashes()).size());
  }

  @Test
  void oddBodiesGiveNoHashesOrBoundedOnesAndNeverFail() throws Exception {
    PrefixHashKey key = key(KEY_BYTES);
    assertNull(probe(key, "model=m&stream=true", 4).prefix(), "not JSON");
    assertNull(probe(key, "{\"model\":\"m\",\"stream\":true", 4).prefix(), "not whole");
    assertNull(probe(key, "{\"model\":\"m\",\"stream\":true,\"messages\":[]}", 4).prefix());
    assertNull(
        probe(key, "{\"messages\":{\"role\":\"user\",\"content\":\"x\"},\"stream\":true}", 4)
            .prefix(),
        "messages that are not a list hold no message");
    // content of every JSON type, nesting deeper than the probe looks, a huge role, lone surrogates
    String odd =
        "{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":7},"
            + "{\"role\":null,\"content\":null},{\"content\":{\"text\":\"in an object\"}},"
            + "{\"role\":\"user\",\"content\":[[[[[[\"deep\"]]]]],{\"text\":[\"x\"]},{\"text\":1},"
            + "\"a string part\",{\"type\":\"image_url\",\"image_url\":{\"url\":\"u\"}}]},"
            + "{\"role\":\""
            + "r".repeat(1_000_000)
            + "\",\"content\":\"\\ud800 lone \\udc00\"}]}";
    PromptBlocks.Prefix prefix = probe(key, odd, 100).prefix();
    // "a string part" 0x1F, ∅ 0x1E, ∅ 0x1E, ∅ 0x1E, "user" 0x1E, "? lone ?" 0x1F + 64 r's 0x1E
    assertEquals(1, prefix.blocks());
    assertEquals(1, prefix.hashes().size());
    ByteArrayOutputStream canonical = new ByteArrayOutputStream();
    canonical.writeBytes("user".getBytes(StandardCharsets.UTF_8));
    canonical.write(0x1E);
    canonical.write(0x1E);
    canonical.write(0x1E);
    canonical.writeBytes("a string part".getBytes(StandardCharsets.UTF_8));
    canonical.write(0x1F);
    canonical.writeBytes("user".getBytes(StandardCharsets.UTF_8));
    canonical.write(0x1E);
    message(canonical, "r".repeat(RequestProbe.MAX_ROLE_CHARS), "? lone ?");
    assertEquals(expected(KEY_BYTES, canonical.toByteArray()), prefix.hashes());
    // 20,000 small messages in random pieces: bounded hashes, every block counted
    StringBuilder many = new StringBuilder("{\"stream\":true,\"messages\":[");
    for (int i = 0; i < 20_000; i++) {
      many.append(i == 0 ? "" : ",").append("{\"role\":\"user\",\"content\":\"m").append(i);
      many.append("\"}");
    }
    many.append("]}");
    PromptBlocks.Prefix manyPrefix = probe(key, many.toString(), 333).prefix();
    assertTrue(manyPrefix.blocks() > 100, manyPrefix.blocks() + " blocks");
    assertEquals(manyPrefix.blocks(), manyPrefix.hashes().size());
  }

  @Test
  void withoutAKeyTheProbeHashesNothing() {
    assertNull(
        probe(null, "{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}", 3)
            .prefix());
  }
}

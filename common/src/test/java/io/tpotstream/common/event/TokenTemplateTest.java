package io.tpotstream.common.event;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The template writes exactly the codec's bytes, for every variant and for awkward ids. */
class TokenTemplateTest {
  private static void assertSameAsCodec(TokenTemplate t, long ts, long elapsed, int seq, int tok) {
    for (TokenKind kind : TokenKind.values()) {
      for (boolean coalesced : new boolean[] {false, true}) {
        byte[] expected = TokenEventCodec.encode(t.event(ts, elapsed, seq, tok, kind, coalesced));
        assertArrayEquals(
            expected,
            t.encode(ts, elapsed, seq, tok, kind, coalesced),
            () -> kind + " coalesced=" + coalesced + ": " + new String(expected));
      }
    }
  }

  @Test
  void encodesTheCodecsBytesForEveryKindAndFlag() {
    Map<String, String> labels = new TreeMap<>(Map.of("concurrency", "10", "target", "gw-a"));
    for (boolean warmup : new boolean[] {false, true}) {
      TokenTemplate t =
          TokenTemplate.of("run-1", "run-1-42", "model-a", labels, "host-1-ab", warmup, "producer");
      assertSameAsCodec(t, 1_767_225_600_123L, 1_234_567L, 0, 1);
      assertSameAsCodec(t, 1_767_225_600_999L, 0L, 255, 3);
      assertSameAsCodec(t, 1L, 9_000_000_000_000L, 1_000_000, 1_000);
    }
  }

  @Test
  void escapesTextAsTheCodecDoes() {
    TokenTemplate t =
        TokenTemplate.of(
            "run \"quoted\"", "id\\with\nnewline-é", "m/ü", Map.of("k\"", "v\t"), "p", false, null);
    assertSameAsCodec(t, 1_767_225_600_123L, 42L, 7, 1);
  }

  @Test
  void idsContainingAMarkerFallBackToTheCodec() {
    TokenTemplate t =
        TokenTemplate.of(
            "run-1357913579135791", "r-2468024680246802", "m", Map.of(), "p", false, "producer");
    assertSameAsCodec(t, 1_767_225_600_123L, 42L, 7, 1);
    byte[] json = t.encode(1_700_000_000_005L, 6L, 7, 8, TokenKind.CONTENT, false);
    TokenEvent back = TokenEventCodec.decode(json);
    assertEquals(6L, back.elapsedNs());
    assertEquals(7, back.seq());
  }

  @Test
  void requestsOfOneFamilyEachGetTheirOwnIdSplicedIn() {
    TokenTemplate.Family family =
        new TokenTemplate.Family(
            "run-1", "model-a", Map.of("concurrency", "200"), "p", false, "producer");
    for (String id : new String[] {"run-1-0", "run-1-w12", "quote\"id", "tab\tid", "ünï"}) {
      TokenTemplate t = family.request(id);
      assertSameAsCodec(t, 1_767_225_600_123L, 42L, 7, 1);
      assertEquals(
          id,
          TokenEventCodec.decode(t.encode(1_700_000_000_005L, 6L, 7, 8, TokenKind.TOOL, true))
              .requestId());
    }
  }
}

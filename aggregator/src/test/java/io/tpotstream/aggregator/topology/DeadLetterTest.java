package io.tpotstream.aggregator.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DeadLetterTest {
  @Test
  void aLongReasonIsCutAndSaysHowLongItWas() {
    String reason = DeadLetter.bound("not a token event: " + "y".repeat(100_000));
    assertEquals(DeadLetter.MAX_REASON_CHARS, reason.length());
    assertTrue(reason.startsWith("not a token event: yyy"));
    assertTrue(reason.endsWith("… (100019 characters)"), reason);
  }

  @Test
  void aReasonIsNeverCutInsideASurrogatePair() {
    String emoji = "\uD83D\uDE00";
    String reason = DeadLetter.bound(emoji.repeat(10_000));
    int beforeSuffix = reason.indexOf('…');
    assertTrue(Character.isLowSurrogate(reason.charAt(beforeSuffix - 1)), reason);
  }

  @Test
  void aShortReasonIsKept() {
    assertEquals("not a token event: x", DeadLetter.bound("not a token event: x"));
  }
}

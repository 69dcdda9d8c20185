package io.tpotstream.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class HandOffThreadTest {
  @Test
  void everyItemIsTakenInOrderBeforeCloseReturnsAndTheEndIsClosed() throws Exception {
    List<Integer> taken = new ArrayList<>();
    AtomicBoolean ended = new AtomicBoolean();
    HandOffThread<Integer> thread =
        new HandOffThread<>("test-hand-off", 2, "out.jsonl", taken::add, () -> ended.set(true));
    for (int i = 0; i < 1000; i++) {
      thread.put(i);
    }
    thread.close();
    thread.close(); // a second close does nothing
    assertEquals(1000, taken.size());
    for (int i = 0; i < 1000; i++) {
      assertEquals(i, taken.get(i));
    }
    assertTrue(ended.get());
  }

  @Test
  void theWorksFailureIsThrownByThePutsAfterItAndByCloseWithTheSubject() throws Exception {
    IOException boom = new IOException("disk full");
    AtomicBoolean ended = new AtomicBoolean();
    HandOffThread<Integer> thread =
        new HandOffThread<>(
            "test-hand-off",
            1,
            "out.jsonl",
            item -> {
              if (item == 3) {
                throw boom;
              }
            },
            () -> ended.set(true));
    IOException failed =
        assertThrows(
            IOException.class,
            () -> {
              for (int i = 0; ; i++) {
                thread.put(i);
              }
            });
    assertEquals("cannot write out.jsonl: disk full", failed.getMessage());
    assertSame(boom, failed.getCause());
    IOException closing = assertThrows(IOException.class, thread::close);
    assertEquals("cannot write out.jsonl: disk full", closing.getMessage());
    assertTrue(ended.get());
  }
}

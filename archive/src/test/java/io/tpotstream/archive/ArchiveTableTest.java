package io.tpotstream.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/** The table the reader gathers a file's records in: what it keeps of the blocks it is handed. */
class ArchiveTableTest {
  @Test
  void aBlockWithNoRecordInTheRangeIsNotKept() {
    byte[] outside = new byte[64];
    byte[] inside = new byte[64];
    ArchiveTable first = new ArchiveTable(4);
    first.addBlock(outside); // every record of it was dropped by --from/--to
    ArchiveTable second = new ArchiveTable(4);
    int kept = second.addBlock(new byte[64]); // dropped too
    kept = second.addBlock(inside);
    second.add(kept, -1, 0, 0, 10, 0, 7L, 1L, 100L, 0, null, 1);
    second.add(kept, -1, 0, 10, 10, 1, 8L, 1L, 101L, 0, null, 2);

    ArchiveTable file = new ArchiveTable(4);
    file.append(first);
    file.append(second);

    assertEquals(2, file.size);
    assertEquals(1, file.blocks.size());
    assertSame(inside, file.blocks.get(0));
    assertEquals(0, file.block[0]);
    assertEquals(0, file.block[1]);
    assertEquals(8L, file.offset[1]);
  }
}

package io.tpotstream.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** A replay's default topic is named from the archive's whole name, within Kafka's rules. */
class ReplayTopicNameTest {
  @Test
  void theWholeBaseNameNamesTheTopic() {
    assertEquals("tpot.replay.run", Replayer.defaultTopic(Path.of("out/run.jsonl.zst")));
    assertEquals("tpot.replay.run.day1", Replayer.defaultTopic(Path.of("run.day1.jsonl.zst")));
    assertEquals("tpot.replay.run.day2", Replayer.defaultTopic(Path.of("run.day2.jsonl.gz")));
    assertEquals("tpot.replay.week-1", Replayer.defaultTopic(Path.of("week 1.JSONL.LZ4")));
    assertEquals("tpot.replay.kcat.txt", Replayer.defaultTopic(Path.of("kcat.txt")));
  }

  @Test
  void aNameTooLongForKafkaIsCutAndKeptApartByItsHash() {
    String a = "a".repeat(300) + "-one.jsonl.zst";
    String b = "a".repeat(300) + "-two.jsonl.zst";
    String topicA = Replayer.defaultTopic(Path.of(a));
    String topicB = Replayer.defaultTopic(Path.of(b));
    assertEquals(249, topicA.length());
    assertNotEquals(topicA, topicB);
    Replayer.checkTopicName(topicA);
    Replayer.checkTopicName(topicB);
  }

  @Test
  void aTopicKafkaWouldRefuseIsRefusedBeforeAnythingIsCreated() {
    for (String bad : new String[] {"", ".", "..", "with space", "x".repeat(250), "é"}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> Replayer.checkTopicName(bad));
      assertTrue(e.getMessage().startsWith("replay: cannot replay into topic '" + bad + "': "));
    }
  }
}

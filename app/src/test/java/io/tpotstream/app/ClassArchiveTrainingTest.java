package io.tpotstream.app;

import static io.tpotstream.app.TpotCli.tpot;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's training run for the class archive: if one of the commands it runs stopped working
 * there (a flag renamed, a topic refused), the launcher would only say the archive could not be
 * made and every command would start slower. So: on a real broker, every command it names runs and
 * leaves its topic with records.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class ClassArchiveTrainingTest {
  @Test
  void theTrainingProducesAggregatesExportsAndReplaysOnTheBrokerItIsGiven(
      TestKafka kafka, @TempDir Path dir) throws Exception {
    Set<String> before;
    try (Admin admin = kafka.admin()) {
      before = admin.listTopics().names().get();
    }
    TpotCli.Result r =
        tpot(
            ClassArchiveTraining.NAME,
            "--work-dir",
            dir.toString(),
            "--bootstrap-server",
            kafka.bootstrapServers());
    assertEquals(0, r.exit(), r.err());

    try (Admin admin = kafka.admin()) {
      Set<String> topics =
          admin.listTopics().names().get().stream()
              .filter(t -> !before.contains(t) && t.startsWith("training-"))
              .collect(Collectors.toSet());
      Map<String, Long> records = new HashMap<>();
      for (String suffix : List.of("-events", "-summaries", "-replayed")) {
        List<String> named = topics.stream().filter(t -> t.endsWith(suffix)).toList();
        assertEquals(1, named.size(), suffix + " in " + topics);
        records.put(suffix, kafka.endOffsetSum(named.get(0)));
      }
      // 2 models x 12 requests x (24 tokens + start and end): well over 600 events
      assertTrue(records.get("-events") > 600, records.toString());
      assertTrue(records.get("-summaries") >= 1, records.toString());
      // the replay sends every exported event, and each heartbeat to every partition
      assertTrue(records.get("-replayed") >= records.get("-events"), records.toString());
    }
  }
}

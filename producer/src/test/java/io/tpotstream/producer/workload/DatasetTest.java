package io.tpotstream.producer.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.producer.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DatasetTest {
  @TempDir Path dir;

  private Dataset read(String... lines) throws Exception {
    Path file = dir.resolve("d.jsonl");
    Files.write(file, List.of(lines));
    return Dataset.read("--dataset", file, w -> {});
  }

  @Test
  void everyCommonShapeIsRead() throws Exception {
    Dataset d =
        read(
            "{\"prompt\": \"Say hi\", \"max_tokens\": 12}",
            "{\"messages\": [{\"role\": \"system\", \"content\": \"Be brief\"},"
                + " {\"role\": \"user\", \"content\": \"What is 2+2?\"}]}",
            "\"a bare string\"",
            "",
            "[{\"role\": \"user\", \"content\": \"a bare list\"}]");
    assertEquals(4, d.size());
    Turn prompt = d.get(0).turns().get(0);
    assertEquals("[{\"role\":\"user\",\"content\":\"Say hi\"}]", prompt.messages().toString());
    assertEquals(12, prompt.maxTokens());
    assertEquals(2, prompt.inputTokens(), "6 characters, estimated at 4 per token");
    Turn messages = d.get(1).turns().get(0);
    assertEquals(2, messages.messages().size());
    assertNull(messages.maxTokens());
    assertEquals(
        "a bare string", d.get(2).turns().get(0).messages().get(0).get("content").asText());
    assertEquals(d.get(0), d.get(4), "the file is cycled");
  }

  @Test
  void shareGptConversationsAreSessionsWithGrowingHistory() throws Exception {
    Dataset d =
        read(
            "{\"conversations\": [{\"from\": \"system\", \"value\": \"S\"},"
                + " {\"from\": \"human\", \"value\": \"Q1\"}, {\"from\": \"gpt\", \"value\": \"A1\"},"
                + " {\"from\": \"human\", \"value\": \"Q2\"}, {\"from\": \"gpt\", \"value\": \"A2\"}],"
                + " \"max_tokens\": 50}",
            "{\"conversations\": [{\"from\": \"gpt\", \"value\": \"only a reply\"}]}");
    assertEquals(1, d.size(), "an entry without a human turn is skipped");
    List<Turn> turns = d.get(0).turns();
    assertEquals(2, turns.size());
    assertEquals(
        "[{\"role\":\"system\",\"content\":\"S\"},{\"role\":\"user\",\"content\":\"Q1\"}]",
        turns.get(0).messages().toString());
    assertEquals(
        "[{\"role\":\"system\",\"content\":\"S\"},{\"role\":\"user\",\"content\":\"Q1\"},"
            + "{\"role\":\"assistant\",\"content\":\"A1\"},{\"role\":\"user\",\"content\":\"Q2\"}]",
        turns.get(1).messages().toString());
    assertEquals(50, turns.get(1).maxTokens());
    assertEquals("d.jsonl", Path.of(d.describe().split(" ")[0]).getFileName().toString());
  }

  @Test
  void aJsonArrayFileIsReadAsShareGptIsPublished() throws Exception {
    Path file = dir.resolve("sharegpt.json");
    Files.writeString(
        file,
        "[\n {\"id\": \"x\", \"conversations\": [{\"from\": \"human\", \"value\": \"Hello\"}]},\n"
            + " {\"id\": \"y\", \"conversations\": []}\n]\n");
    List<String> warnings = new ArrayList<>();
    Dataset d = Dataset.read("--dataset", file, warnings::add);
    assertEquals(1, d.size());
    assertEquals(
        List.of("--dataset: " + file + ": 1 entries without a user turn were skipped"), warnings);
  }

  @Test
  void aBadLineNamesTheFileTheLineAndWhatToWrite() {
    ConfigException e =
        assertThrows(ConfigException.class, () -> read("{\"prompt\": \"ok\"}", "{\"text\": 1}"));
    assertTrue(
        e.getMessage()
            .endsWith(
                "d.jsonl line 2: expected {\"prompt\": ...}, {\"messages\":"
                    + " [...]}, ShareGPT {\"conversations\": [...]}, a string or an array of messages"),
        e.getMessage());
    ConfigException notJson = assertThrows(ConfigException.class, () -> read("{oops"));
    assertTrue(
        notJson.getMessage().endsWith("line 1: not JSON (expected one entry per line, JSONL)"));
    ConfigException maxTokens =
        assertThrows(ConfigException.class, () -> read("{\"prompt\": \"p\", \"max_tokens\": -3}"));
    assertTrue(
        maxTokens.getMessage().endsWith("\"max_tokens\" must be a positive integer, got -3"));
    ConfigException missing =
        assertThrows(
            ConfigException.class,
            () -> Dataset.read("--dataset", dir.resolve("nope.jsonl"), w -> {}));
    assertEquals(
        "--dataset: " + dir.resolve("nope.jsonl") + " not found: check the path",
        missing.getMessage());
  }

  @Test
  void theSampleDatasetShipsWithTpotAndMixesShapesAndLengths() {
    Dataset sample = Dataset.read("--dataset", Path.of(Dataset.SAMPLE), w -> {});
    assertEquals(27, sample.size());
    assertEquals(34, sample.turns());
    java.util.Set<String> classes = new java.util.TreeSet<>();
    for (int i = 0; i < sample.size(); i++) {
      for (Turn t : sample.get(i).turns()) {
        classes.add(InputLength.classOf(t.inputTokens()));
      }
    }
    assertEquals(java.util.Set.of("0-127", "128-511", "512-1023"), classes);
  }

  @Test
  void lengthClassesAreTokenRanges() {
    assertEquals("0-127", InputLength.classOf(0));
    assertEquals("128-511", InputLength.classOf(128));
    assertEquals("4096-8191", InputLength.classOf(8191));
    assertEquals("8192+", InputLength.classOf(100_000));
  }
}

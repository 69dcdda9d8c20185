package io.tpotstream.producer.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.producer.config.ConfigException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each format's reader: known lines read exactly, the format told from the file, and each kind of
 * bad input stopped at its line with the file, the line and the field named.
 */
class TraceReadersTest {
  @TempDir Path dir;

  private Path file(String name, String text) throws IOException {
    Path f = dir.resolve(name);
    Files.writeString(f, text);
    return f;
  }

  private List<TraceRequest> read(Path f) {
    List<TraceRequest> all = new ArrayList<>();
    String where = "trace " + f.getFileName();
    try (TraceReader r = TraceFormat.detect(f, where).open(f, where)) {
      TraceRequest t;
      while ((t = r.next()) != null) {
        all.add(t);
      }
    }
    return all;
  }

  /** The message of reading {@code text} as {@code t.jsonl} whole (the check before a replay). */
  private String problem(String text) throws IOException {
    Path f = file("t.jsonl", text);
    return assertThrows(
            ConfigException.class,
            () -> TraceFile.check("trace", f, TraceFormat.JSONL, 0, Long.MAX_VALUE))
        .getMessage();
  }

  private String csvProblem(String text) throws IOException {
    Path f = file("t.csv", text);
    return assertThrows(
            ConfigException.class,
            () -> TraceFile.check("trace", f, TraceFormat.AZURE_CSV, 0, Long.MAX_VALUE))
        .getMessage();
  }

  @Test
  void mooncakeAndTpotLinesReadExactly() throws IOException {
    Path f =
        file(
            "t.jsonl",
            "\uFEFF{\"timestamp\": 0, \"input_length\": 1100, \"output_length\": 20,"
                + " \"hash_ids\": [0, 1, 2]}\r\n"
                + "\n"
                + "{\"timestamp\": 27, \"input_length\": 70, \"output_length\": 9, \"hash_ids\":"
                + " [4], \"block_size\": 64, \"model\": \"m-1\", \"labels\": {\"b\": \"2\", \"a\":"
                + " \"1\"}, \"session_id\": 17, \"turn\": 2, \"request_id\": \"r-9\","
                + " \"extra\": {\"ignored\": true}}\n"
                + "{\"timestamp\": 27, \"input_length\": 5, \"output_length\": 1, \"hash_ids\":"
                + " null, \"block_size\": 64, \"model\": null}");
    // a line's block_size must be the trace's: here the first line's default differs
    assertEquals(
        "trace t.jsonl line 3: block_size 64 differs from line 1's 512: a trace has one block"
            + " size (a hash id is the same text in every request)",
        assertThrows(ConfigException.class, () -> read(f)).getMessage());
    Files.writeString(f, Files.readString(f).replace("[0, 1, 2]}", "[0], \"block_size\": 64}"));
    List<TraceRequest> lines = read(f);
    assertEquals(3, lines.size());
    TraceRequest first = lines.get(0);
    assertEquals(1, first.line());
    assertEquals(0, first.offsetMs());
    assertEquals(1100, first.inputTokens());
    assertEquals(20, first.outputTokens());
    assertArrayEquals(new long[] {0}, first.hashIds());
    assertEquals(64, first.blockSize());
    assertNull(first.model());
    assertEquals(Map.of(), first.labels());
    assertNull(first.sessionId());
    TraceRequest second = lines.get(1);
    assertEquals(3, second.line(), "blank lines count");
    assertEquals(27, second.offsetMs());
    assertArrayEquals(new long[] {4}, second.hashIds());
    assertEquals("m-1", second.model());
    assertEquals(List.of("a", "b"), List.copyOf(second.labels().keySet()));
    assertEquals("17", second.sessionId(), "a numeric session id is read as its digits");
    assertEquals(2, second.turn());
    assertEquals("r-9", second.requestId());
    assertArrayEquals(new long[0], lines.get(2).hashIds());
    assertNull(lines.get(2).model());
  }

  @Test
  void azureRowsReadAsOffsetsFromTheFirstRow() throws IOException {
    Path f =
        file(
            "t.csv",
            "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                + "2023-11-16 18:15:46.6805900,4808,10\n"
                + "2023-11-16 18:15:46.6810900,3180,8\n"
                + "\"2023-11-16 18:15:50.0000000\", 110 ,\"27\"\n"
                + "2023-11-16T18:16:46.680590+00:00,1,1\n");
    List<TraceRequest> rows = read(f);
    assertEquals(4, rows.size());
    assertEquals(
        List.of(0L, 1L, 3319L, 60000L), rows.stream().map(TraceRequest::offsetMs).toList());
    assertEquals(
        List.of(4808, 3180, 110, 1), rows.stream().map(TraceRequest::inputTokens).toList());
    assertEquals(List.of(10, 8, 27, 1), rows.stream().map(TraceRequest::outputTokens).toList());
    assertEquals(2, rows.get(0).line());
    assertArrayEquals(new long[0], rows.get(0).hashIds());
    Path reordered =
        file("r.csv", "GeneratedTokens,x,TIMESTAMP,ContextTokens\n5,?,2024-05-10 00:00:00,7\n");
    TraceRequest r = read(reordered).get(0);
    assertEquals(7, r.inputTokens());
    assertEquals(5, r.outputTokens());
  }

  @Test
  void aGzippedTraceReadsAsThePlainOne() throws IOException {
    Path f = dir.resolve("t.jsonl.gz");
    try (GZIPOutputStream out = new GZIPOutputStream(Files.newOutputStream(f))) {
      out.write(
          "{\"timestamp\": 3, \"input_length\": 9, \"output_length\": 2}\n"
              .getBytes(StandardCharsets.UTF_8));
    }
    assertEquals(9, read(f).get(0).inputTokens());
  }

  @Test
  void eachBadJsonLineIsStoppedAtItsLineNamingTheField() throws IOException {
    String ok = "{\"timestamp\": 5, \"input_length\": 1024, \"output_length\": 3}\n";
    assertEquals(
        "trace: "
            + dir.resolve("t.jsonl")
            + " line 2: timestamp 4 is before line 1's 5: a"
            + " trace's lines must be in time order",
        problem(ok + "{\"timestamp\": 4, \"input_length\": 10, \"output_length\": 3}"));
    String at = "trace: " + dir.resolve("t.jsonl") + " line 1: ";
    assertEquals(
        at + "has no input_length (tokens of the prompt)",
        problem("{\"timestamp\": 1, \"output_length\": 3}"));
    assertEquals(
        at + "input_length -5 is less than 1 (tokens of the prompt)",
        problem("{\"timestamp\": 1, \"input_length\": -5, \"output_length\": 3}"));
    assertEquals(
        at
            + "output_length 2000000 is more than 1000000 (tokens of the output, sent as"
            + " max_tokens)",
        problem("{\"timestamp\": 1, \"input_length\": 5, \"output_length\": 2000000}"));
    assertEquals(
        at
            + "timestamp 99999999999999 is more than 31622400000 (ms from the trace's start, a"
            + " year at most)",
        problem("{\"timestamp\": 99999999999999, \"input_length\": 5, \"output_length\": 2}"));
    assertEquals(
        at
            + "timestamp 123456789012345678901234567890 is more than 31622400000 (ms from the"
            + " trace's start, a year at most)",
        problem(
            "{\"timestamp\": 123456789012345678901234567890, \"input_length\": 5,"
                + " \"output_length\": 2}"));
    assertEquals(
        at + "timestamp must be a whole number, got 1.5",
        problem("{\"timestamp\": 1.5, \"input_length\": 5, \"output_length\": 2}"));
    assertEquals(
        at + "input_length must be a whole number, got \"12\"",
        problem("{\"timestamp\": 1, \"input_length\": \"12\", \"output_length\": 2}"));
    assertEquals(
        at
            + "hash_ids has 3 ids, more than 2 (one per block of 512 tokens of its 1024 input"
            + " tokens)",
        problem(ok.replace("}", ", \"hash_ids\": [1, 2, 3]}")));
    assertEquals(
        at + "hash_ids -1 is less than 0 (block ids, whole numbers from 0)",
        problem(ok.replace("}", ", \"hash_ids\": [1, -1]}")));
    assertEquals(
        at + "hash_ids must be a list of whole numbers, got \"1,2\"",
        problem(ok.replace("}", ", \"hash_ids\": \"1,2\"}")));
    assertEquals(
        at + "block_size 0 is less than 1 (tokens per block)",
        problem(ok.replace("}", ", \"block_size\": 0}")));
    assertEquals(at + "model is empty", problem(ok.replace("}", ", \"model\": \"\"}")));
    assertEquals(
        at + "model is 257 characters, more than 256",
        problem(ok.replace("}", ", \"model\": \"" + "m".repeat(257) + "\"}")));
    assertEquals(
        at + "model must be a string, got [\"a\"]",
        problem(ok.replace("}", ", \"model\": [\"a\"]}")));
    assertEquals(
        at + "labels.k must be a string, got 3",
        problem(ok.replace("}", ", \"labels\": {\"k\": 3}}")));
    assertEquals(
        at + "labels: a label name is empty",
        problem(ok.replace("}", ", \"labels\": {\"\": \"v\"}}")));
    assertEquals(
        at + "turn 2 has no session_id: a turn belongs to a session",
        problem(ok.replace("}", ", \"turn\": 2}")));
    assertEquals(
        at
            + "is not a JSON object but [1,2]: expected {\"timestamp\": ..., \"input_length\": ...,"
            + " \"output_length\": ...}",
        problem("[1, 2]"));
    assertTrue(problem("{\"timestamp\": 1,").startsWith(at + "is not JSON ("), "cut short");
    assertTrue(problem(ok.trim() + " junk").startsWith(at + "is not JSON ("), "one value a line");
    assertEquals(
        at.replace(" line 1: ", " line 2: ")
            + "turn 1 of session s comes after its turn 2 (line 1): a session's turns must be in"
            + " time order",
        problem(
            ok.replace("}", ", \"session_id\": \"s\", \"turn\": 2}")
                + ok.replace("}", ", \"session_id\": \"s\", \"turn\": 1}")));
    String long400k =
        "{\"timestamp\": 1, \"input_length\": 5, \"output_length\": 2, \"x\": \""
            + "a".repeat(400 * 1024)
            + "\"}";
    assertEquals(
        "trace: "
            + dir.resolve("t.jsonl")
            + " line 1 is longer than 262144 bytes (a trace line is"
            + " a few KB): is it a trace in JSON lines or CSV?",
        problem(long400k));
    assertEquals(
        "trace: " + dir.resolve("t.jsonl") + " holds no request: a trace has one request a line",
        problem("\n\n"));
  }

  @Test
  void eachBadCsvRowIsStoppedAtItsLineNamingTheColumn() throws IOException {
    String header = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
    String at = "trace: " + dir.resolve("t.csv") + " line 2: ";
    assertEquals(
        "trace: "
            + dir.resolve("t.csv")
            + " line 1: is not the Azure trace's header"
            + " TIMESTAMP,ContextTokens,GeneratedTokens: got time,in,out",
        csvProblem("time,in,out\n1,2,3\n"));
    assertEquals(
        at
            + "TIMESTAMP '16/11/2023 18:15' is not a date and time such as 2023-11-16"
            + " 18:15:46.6805900",
        csvProblem(header + "16/11/2023 18:15,5,5\n"));
    assertEquals(
        at.replace("line 2", "line 3")
            + "TIMESTAMP 2023-11-16 18:15:45 is before line 2's: a trace's rows must be in time"
            + " order",
        csvProblem(header + "2023-11-16 18:15:46,5,5\n2023-11-16 18:15:45,5,5\n"));
    assertEquals(
        at.replace("line 2", "line 3")
            + "TIMESTAMP 2025-11-16 18:15:46 is 731 days after the first row's, more than 366 (ms"
            + " from the trace's start, a year at most)",
        csvProblem(header + "2023-11-16 18:15:46,5,5\n2025-11-16 18:15:46,5,5\n"));
    assertEquals(
        at + "has 2 fields, fewer than the header's 3 (TIMESTAMP,ContextTokens,GeneratedTokens)",
        csvProblem(header + "2023-11-16 18:15:46,5\n"));
    assertEquals(
        at + "ContextTokens 0 is less than 1 (tokens of the prompt)",
        csvProblem(header + "2023-11-16 18:15:46,0,5\n"));
    assertEquals(
        at + "GeneratedTokens must be a whole number, got '5.5'",
        csvProblem(header + "2023-11-16 18:15:46,5,5.5\n"));
    assertEquals(
        at
            + "GeneratedTokens 99999999999999999999 is more than 1000000 (tokens of the output,"
            + " sent as max_tokens)",
        csvProblem(header + "2023-11-16 18:15:46,5,99999999999999999999\n"));
  }

  @Test
  void theFormatIsToldFromTheFirstLineOrNamed() throws IOException {
    assertEquals(
        TraceFormat.JSONL, TraceFormat.detect(file("a", "\n  {\"timestamp\": 0}\n"), "trace a"));
    assertEquals(
        TraceFormat.AZURE_CSV,
        TraceFormat.detect(file("b", "TIMESTAMP,ContextTokens,GeneratedTokens\n"), "trace b"));
    assertEquals(
        "trace c line 1 starts neither JSON lines (an object: {\"timestamp\": ...}) nor the"
            + " Azure CSV (a header TIMESTAMP,ContextTokens,GeneratedTokens): check the file, or"
            + " name its format with trace_format (--trace-format)",
        assertThrows(ConfigException.class, () -> TraceFormat.detect(file("c", "hello"), "trace c"))
            .getMessage());
    assertEquals(
        "trace d is empty: a trace has one request a line",
        assertThrows(ConfigException.class, () -> TraceFormat.detect(file("d", ""), "trace d"))
            .getMessage());
    assertEquals(TraceFormat.JSONL, TraceFormat.parse("k", "Mooncake"));
    assertEquals(TraceFormat.AZURE_CSV, TraceFormat.parse("k", "azure"));
    assertEquals(
        "k: 'xml' is not a trace format (use mooncake, tpot or azure)",
        assertThrows(ConfigException.class, () -> TraceFormat.parse("k", "xml")).getMessage());
  }
}

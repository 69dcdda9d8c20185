package io.tpotstream.sink.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.jvm.JavaLauncher;
import io.tpotstream.sink.TestWindows;
import io.tpotstream.sink.record.FlatRecord;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One writer per file: a second one, in this JVM or another, fails at once and names the first. */
class WriterLockTest {
  @TempDir Path dir;

  private static FlatRecord row(int window) {
    return FlatRecord.of(TestWindows.summary("a", Map.of(), window));
  }

  private static String line(int window) {
    return Csv.line(row(window).cells(List.of()));
  }

  private List<String> files() throws Exception {
    try (var names = Files.list(dir)) {
      return names.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void writersThatCloseLeaveNoLockFileAndALeftoverOneBlocksNoOne() throws Exception {
    Path path = dir.resolve("summaries.csv");
    try (CsvFile csv = CsvFile.open(path, null);
        JsonlFile jsonl = JsonlFile.open(dir.resolve("summaries.jsonl"), s -> {})) {
      csv.append(row(0));
      csv.sync();
      assertEquals(
          List.of("summaries.csv", "summaries.csv.lock", "summaries.jsonl", "summaries.jsonl.lock"),
          files());
    }
    assertEquals(List.of("summaries.csv", "summaries.jsonl"), files());

    WriterLock.checkFree(path); // the early check of sink, run and demo
    assertEquals(List.of("summaries.csv", "summaries.jsonl"), files());

    // a writer killed before it closed leaves its lock file: it blocks no one, and goes at the end
    Files.writeString(dir.resolve("summaries.csv.lock"), "pid 1 on host gone, since 2026-01-01\n");
    try (CsvFile csv = CsvFile.open(path, null)) {
      csv.append(row(1));
      csv.sync();
    }
    assertEquals(List.of("summaries.csv", "summaries.jsonl"), files());
    assertEquals(3, Files.readAllLines(path).size());
  }

  @Test
  void aSecondWriterInTheSameJvmFailsAndTheFirstKeepsWriting() throws Exception {
    Path path = dir.resolve("out/summaries.csv");
    try (CsvFile first = CsvFile.open(path, null)) {
      first.append(row(0));
      first.sync();

      FileInUseException e = assertThrows(FileInUseException.class, () -> CsvFile.open(path, null));
      assertEquals(
          path
              + " is being written by another writer (pid "
              + ProcessHandle.current().pid()
              + " on host "
              + InetAddress.getLocalHost().getHostName()
              + ", since ",
          e.getMessage().substring(0, e.getMessage().indexOf("since ") + 6));
      assertTrue(e.getMessage().endsWith("): stop that one, or give this one another file"));
      assertThrows(FileInUseException.class, () -> JsonlFile.open(path, s -> {}));

      first.append(row(1));
      first.sync();
    }
    try (CsvFile again = CsvFile.open(path, null)) {
      again.append(row(2));
      again.sync();
    }

    assertEquals(
        List.of(String.join(",", FlatRecord.columns(List.of())), line(0), line(1), line(2)),
        Files.readAllLines(path));
  }

  @Test
  void aSymlinkToAFileBeingWrittenMeetsTheSameLock() throws Exception {
    Path real = dir.resolve("real/summaries.csv");
    Files.createDirectories(real.getParent());
    // a relative link, made before the file exists
    Path link = Files.createSymbolicLink(dir.resolve("link.csv"), Path.of("real/summaries.csv"));
    Path linkedDir = Files.createSymbolicLink(dir.resolve("alias"), real.getParent());
    try (CsvFile first = CsvFile.open(link, null)) {
      first.append(row(0));
      first.sync();
      for (Path other : List.of(real, link, linkedDir.resolve("summaries.csv"))) {
        FileInUseException e =
            assertThrows(FileInUseException.class, () -> CsvFile.open(other, null));
        String named = other.equals(real) ? "" : " (that is " + real.toRealPath() + ")";
        assertTrue(
            e.getMessage().startsWith(other + named + " is being written by another writer (pid "),
            e.getMessage());
        assertTrue(
            e.getMessage()
                .endsWith(
                    "; lock "
                        + real.toRealPath()
                        + ".lock): stop that one, or give this one another file"),
            e.getMessage());
      }
    }
    assertEquals(
        List.of(String.join(",", FlatRecord.columns(List.of())), line(0)),
        Files.readAllLines(real));
  }

  @Tag("slow")
  @Test
  void aWriterInAnotherProcessIsNamedByItsPid() throws Exception {
    Path path = dir.resolve("summaries.csv");
    Process child =
        JavaLauncher.builder(List.of(), HoldFile.class, List.of(), List.of(path.toString()))
            .redirectError(dir.resolve("child.err").toFile())
            .start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      assertEquals("holding", out.readLine());

      FileInUseException e = assertThrows(FileInUseException.class, () -> CsvFile.open(path, null));
      assertTrue(
          e.getMessage()
              .startsWith(
                  path
                      + " is being written by another writer (pid "
                      + child.pid()
                      + " on host "
                      + InetAddress.getLocalHost().getHostName()
                      + ", since "),
          e.getMessage());
    } finally {
      child.getOutputStream().close();
      assertTrue(child.waitFor(30, TimeUnit.SECONDS));
    }
    assertEquals(0, child.exitValue());
    try (CsvFile csv = CsvFile.open(path, null)) {
      csv.append(row(1));
      csv.sync();
    }
    assertEquals(
        List.of(String.join(",", FlatRecord.columns(List.of())), line(0), line(1)),
        Files.readAllLines(path));
  }

  /** Holds a CSV open (one row written) until its stdin closes. */
  public static final class HoldFile {
    private HoldFile() {}

    public static void main(String[] args) throws Exception {
      try (CsvFile csv = CsvFile.open(Path.of(args[0]), null)) {
        csv.append(row(0));
        csv.sync();
        System.out.println("holding");
        System.out.flush();
        System.in.readAllBytes();
      }
    }
  }
}

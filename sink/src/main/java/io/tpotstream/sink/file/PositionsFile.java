package io.tpotstream.sink.file;

import io.tpotstream.common.DurableFiles;
import io.tpotstream.common.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a sink is in its input, kept beside its files ({@code summaries.csv.positions}): per
 * partition of the summaries topic, the offset after the last summary the sink committed, for its
 * group. Kafka deletes a member-less group's offsets {@code offsets.retention.minutes} after its
 * last commit (7 days by default), and the sink, assigned its partitions, is never a member: after
 * a quiet week its group would start over from the earliest summary. These positions outlive any
 * pause, so the sink resumes after them and sends nothing to {@code tpot.metrics} or {@code
 * /metrics} twice.
 *
 * <p>Written after each batch's commit, whole or not at all (a temporary file, fsynced, renamed,
 * the directory fsynced); the sink's lock on the file it sits beside makes it one writer's.
 */
public final class PositionsFile {
  private static final Logger LOG = LoggerFactory.getLogger(PositionsFile.class);

  /** The file's format, in its {@code format} field. */
  static final String FORMAT = "tpot-sink-positions/1";

  /**
   * The file's content.
   *
   * @param offsets per partition, the next offset to read
   */
  record Content(String format, String group, String topic, Map<Integer, Long> offsets) {}

  private final Path path;
  private final String group;
  private final String topic;
  private final Map<Integer, Long> offsets = new TreeMap<>();

  /** The positions of {@code group} in {@code topic}, kept in {@code path}. */
  public PositionsFile(Path path, String group, String topic) {
    this.path = path;
    this.group = group;
    this.topic = topic;
  }

  /**
   * Where the positions of a sink writing {@code file} are kept: beside its real path, as its lock
   * ({@link WriterLock}), whichever link or spelling names it.
   */
  public static Path beside(Path file) {
    Path real;
    try {
      real = WriterLock.realPath(file);
    } catch (IOException e) {
      real = file;
    }
    return real.resolveSibling(real.getFileName() + ".positions");
  }

  public Path path() {
    return path;
  }

  /**
   * The positions stored for this group and topic (partition → next offset), also kept as this
   * file's positions; empty when the file is absent, is another group's or topic's, or cannot be
   * read (said in a warning: the sink then starts where its group's offsets say).
   */
  public Map<Integer, Long> read() {
    Content content;
    try {
      content = Json.MAPPER.readValue(Files.readAllBytes(path), Content.class);
    } catch (NoSuchFileException e) {
      return Map.of();
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "{} cannot be read ({}): the sink starts where its group's offsets say",
          path,
          e.getMessage());
      return Map.of();
    }
    if (!FORMAT.equals(content.format())
        || !group.equals(content.group())
        || !topic.equals(content.topic())
        || content.offsets() == null) {
      LOG.info(
          "{} holds the positions of group {} in {}, not of group {} in {}: not used",
          path,
          content.group(),
          content.topic(),
          group,
          topic);
      return Map.of();
    }
    offsets.putAll(content.offsets());
    return Map.copyOf(offsets);
  }

  /**
   * Takes {@code next} (partition → next offset) as the positions of those partitions and writes
   * the file.
   *
   * @throws UncheckedIOException when the file cannot be written
   */
  public void advance(Map<Integer, Long> next) {
    offsets.putAll(next);
    write();
  }

  private void write() {
    try {
      DurableFiles.writeWhole(
          path, Json.MAPPER.writeValueAsBytes(new Content(FORMAT, group, topic, offsets)));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + path + ": " + e.getMessage(), e);
    }
  }
}

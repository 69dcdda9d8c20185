package io.tpotstream.bench.profile;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * The hot frames of a JFR recording: {@code <file.jfr> [thread-name-part] [top-n]}. Prints the
 * threads with the most CPU samples, the leaf frames (where the CPU is), and the frames that appear
 * anywhere in the sampled stacks (what the time is spent under), each as a share of the samples.
 */
public final class HotFrames {
  private HotFrames() {}

  public static void main(String[] args) throws IOException {
    Path file = Path.of(args[0]);
    String threadPart = args.length > 1 ? args[1] : "";
    int top = args.length > 2 ? Integer.parseInt(args[2]) : 25;
    Map<String, Long> threads = new HashMap<>();
    Map<String, Long> leaves = new HashMap<>();
    Map<String, Long> inclusive = new HashMap<>();
    long samples = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
      if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
        continue;
      }
      RecordedThread thread = e.getThread("sampledThread");
      String name = thread == null ? "?" : thread.getJavaName();
      threads.merge(name == null ? "?" : name.replaceAll("\\d+", "N"), 1L, Long::sum);
      if (name == null || !name.contains(threadPart)) {
        continue;
      }
      RecordedStackTrace stack = e.getStackTrace();
      if (stack == null || stack.getFrames().isEmpty()) {
        continue;
      }
      samples++;
      List<RecordedFrame> frames = stack.getFrames();
      leaves.merge(frame(frames.get(0)), 1L, Long::sum);
      frames.stream()
          .map(HotFrames::frame)
          .distinct()
          .forEach(f -> inclusive.merge(f, 1L, Long::sum));
    }
    System.out.println("CPU samples by thread (all threads):");
    print(threads, threads.values().stream().mapToLong(Long::longValue).sum(), 12);
    System.out.println(
        "\nleaf frames (threads matching '" + threadPart + "', " + samples + " samples):");
    print(leaves, samples, top);
    System.out.println("\nframes anywhere on the stack:");
    print(inclusive, samples, top);
  }

  private static String frame(RecordedFrame f) {
    return f.getMethod().getType().getName() + "." + f.getMethod().getName();
  }

  private static void print(Map<String, Long> counts, long total, int top) {
    counts.entrySet().stream()
        .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
        .limit(top)
        .forEach(
            e ->
                System.out.printf(
                    Locale.ROOT, "  %5.1f%%  %s%n", 100.0 * e.getValue() / total, e.getKey()));
  }
}

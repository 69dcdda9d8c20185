package io.tpotstream.bench.recompute;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Finds kcat, the Kafka client (librdkafka) B5 compares tpot with. */
final class Kcat {
  private Kcat() {}

  /** The kcat (or kafkacat) on the PATH, or an error that says how to install it. */
  static String path() {
    String pathVar = System.getenv().getOrDefault("PATH", "");
    for (String name : new String[] {"kcat", "kafkacat"}) {
      for (String dir : pathVar.split(java.io.File.pathSeparator)) {
        Path candidate = Path.of(dir, name);
        if (!dir.isEmpty() && Files.isExecutable(candidate)) {
          return candidate.toString();
        }
      }
    }
    throw new IllegalStateException(
        "kcat is not installed: B5 compares tpot with it (apt-get install kcat)");
  }

  /** kcat reading {@code topic} from its start to its end, one value per line on stdout. */
  static List<String> readAll(String bootstrap, String topic) {
    return List.of(path(), "-C", "-b", bootstrap, "-t", topic, "-o", "beginning", "-e", "-q");
  }

  /** True when kcat is on the PATH. */
  static boolean available() {
    try {
      path();
      return true;
    } catch (IllegalStateException e) {
      return false;
    }
  }
}

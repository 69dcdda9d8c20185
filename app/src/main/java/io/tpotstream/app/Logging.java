package io.tpotstream.app;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;
import org.slf4j.LoggerFactory;

/**
 * tpot's own logging: started beside the command line's parsing, and lowered to warnings where the
 * command's own output says what happens. Log4j reads its configuration on first use, half a second
 * on a fresh JVM that the first Kafka client would otherwise wait for; a level set while it is
 * still reading would be replaced by the configuration, so lowering waits for the start to end.
 */
public final class Logging {
  private static Thread starting;

  private Logging() {}

  /** Starts logging in a thread of its own (once, at the process's start). */
  static synchronized void startInBackground() {
    if (starting == null) {
      starting = new Thread(() -> LoggerFactory.getLogger(Logging.class), "logging-start");
      starting.setDaemon(true);
      starting.start();
    }
  }

  /**
   * Turns tpot's informational log lines off (warnings and errors stay), unless TPOT_LOG_LEVEL
   * names a level.
   */
  public static void onlyWarnings() {
    if (System.getenv("TPOT_LOG_LEVEL") != null) {
      return;
    }
    Thread start;
    synchronized (Logging.class) {
      start = starting;
    }
    if (start != null) {
      try {
        start.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    Configurator.setLevel("io.tpotstream", Level.WARN);
  }
}

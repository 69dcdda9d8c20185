package io.tpotstream.app;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;
import org.slf4j.LoggerFactory;

/**
 * tpot's own logging: started beside the command line's parsing, and lowered to warnings where the
 * command's own output says what happens. Log4j reads its configuration on first use, a quarter to
 * half a second on a fresh JVM that the first Kafka client would otherwise wait for. A command that
 * lowers the level does not wait for that start either (BENCHMARKS.md, B5, "Starting sooner"): a
 * configuration read after it starts at warnings ({@value #LEVEL_PROPERTY}, which log4j2.xml
 * reads), and one being read while it asks is lowered by the starting thread once it is read (a
 * level set while log4j reads its configuration would be replaced by the configuration). In that
 * last case an INFO line another thread logs between the end of the reading and the lowering still
 * shows; and, as before, what is logged while log4j is still starting meets its default
 * configuration, which shows only errors.
 */
public final class Logging {
  /** The system property log4j2.xml reads tpot's own level from, before TPOT_LOG_LEVEL. */
  static final String LEVEL_PROPERTY = "tpot.log.level";

  private static Thread starting;
  private static boolean started;
  private static boolean warningsOnly;

  private Logging() {}

  /** Starts logging in a thread of its own (once, at the process's start). */
  static synchronized void startInBackground() {
    if (starting == null) {
      starting =
          new Thread(
              () -> {
                try {
                  LoggerFactory.getLogger(Logging.class);
                } catch (RuntimeException | Error e) {
                  try {
                    started(); // a start that failed still gets the level asked for
                  } catch (RuntimeException | Error f) {
                    e.addSuppressed(f);
                  }
                  throw e;
                }
                started();
              },
              "logging-start");
      starting.setDaemon(true);
      starting.start();
    }
  }

  private static synchronized void started() {
    started = true;
    if (warningsOnly) {
      Configurator.setLevel("io.tpotstream", Level.WARN);
    }
  }

  /**
   * Turns tpot's informational log lines off (warnings and errors stay), unless TPOT_LOG_LEVEL
   * names a level.
   */
  public static synchronized void onlyWarnings() {
    if (System.getenv("TPOT_LOG_LEVEL") != null) {
      return;
    }
    warningsOnly = true;
    System.setProperty(LEVEL_PROPERTY, "WARN");
    if (started || starting == null) {
      Configurator.setLevel("io.tpotstream", Level.WARN);
    }
  }
}

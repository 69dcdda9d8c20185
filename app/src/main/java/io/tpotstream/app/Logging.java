package io.tpotstream.app;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;

/**
 * tpot's own logging, lowered to warnings where the command's own output says what happens: {@value
 * #LEVEL_PROPERTY} (which log4j2.xml reads) for a configuration read later, and the level itself
 * for one already read.
 */
public final class Logging {
  /** The system property log4j2.xml reads tpot's own level from, before TPOT_LOG_LEVEL. */
  public static final String LEVEL_PROPERTY = "tpot.log.level";

  private Logging() {}

  /**
   * Turns tpot's informational log lines off (warnings and errors stay), unless TPOT_LOG_LEVEL
   * names a level.
   */
  public static void onlyWarnings() {
    if (System.getenv("TPOT_LOG_LEVEL") != null) {
      return;
    }
    System.setProperty(LEVEL_PROPERTY, "WARN");
    Configurator.setLevel("io.tpotstream", Level.WARN);
  }
}

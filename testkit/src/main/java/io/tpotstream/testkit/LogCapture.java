package io.tpotstream.testkit;

import java.util.ArrayList;
import java.util.List;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.logging.log4j.core.config.Property;

/**
 * Keeps every log line the test JVM writes while open, with the project's own loggers at DEBUG, so
 * that a test can search them (for a warning that must be there, a secret that must not).
 */
public final class LogCapture extends AbstractAppender implements AutoCloseable {
  private final List<String> lines = new ArrayList<>();

  private LogCapture() {
    super("capture", null, null, true, Property.EMPTY_ARRAY);
  }

  public static LogCapture begin() {
    LogCapture capture = new LogCapture();
    capture.start();
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    Configuration config = ctx.getConfiguration();
    config.addAppender(capture);
    config.getRootLogger().addAppender(capture, Level.ALL, null);
    Configurator.setLevel("io.tpotstream", Level.DEBUG);
    ctx.updateLoggers();
    return capture;
  }

  @Override
  public void append(LogEvent event) {
    StringBuilder line =
        new StringBuilder(event.getLoggerName())
            .append(' ')
            .append(event.getMessage().getFormattedMessage());
    for (Throwable t = event.getThrown(); t != null; t = t.getCause()) {
      line.append(" | ").append(t);
    }
    synchronized (lines) {
      lines.add(line.toString());
    }
  }

  public List<String> lines() {
    synchronized (lines) {
      return new ArrayList<>(lines);
    }
  }

  @Override
  public void close() {
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    ctx.getConfiguration().getRootLogger().removeAppender(getName());
    Configurator.setLevel("io.tpotstream", Level.INFO);
    ctx.updateLoggers();
    stop();
  }
}

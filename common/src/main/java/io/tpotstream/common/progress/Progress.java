package io.tpotstream.common.progress;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The progress of a long command on stderr: on a terminal one live line (what, done, percent when
 * the total is known, rate, ETA) redrawn a few times a second; elsewhere (a log, a pipe) the same
 * text as a plain line every few seconds; nothing when quiet. A command moves through phases
 * ("reading", "sending"); each has its own count, unit and total. Counting is thread-safe and cheap
 * ({@link #add} is one atomic add), so hot loops may count each record.
 */
public final class Progress implements AutoCloseable {
  /** How the progress is shown. */
  public enum Mode {
    /** A line redrawn in place (a terminal). */
    LIVE,
    /** A full line every few seconds (a log file, a pipe, CI). */
    PLAIN,
    /** Nothing at all ({@code --quiet}). */
    QUIET;

    /** QUIET when asked, LIVE when stderr is a terminal, else PLAIN. */
    public static Mode auto(boolean quiet) {
      if (quiet) {
        return QUIET;
      }
      return stderrIsTerminal() ? LIVE : PLAIN;
    }
  }

  private static final long LIVE_EVERY_NS = Duration.ofMillis(250).toNanos();
  private static final Duration PLAIN_EVERY = Duration.ofSeconds(5);

  private final String command;
  private final Mode mode;
  private final PrintWriter out;
  private final long plainEveryNs;
  private final AtomicLong done = new AtomicLong();
  private final Object lock = new Object();
  private final Thread renderer;
  private volatile Phase phase;
  private volatile boolean finished;
  private volatile boolean started;
  private volatile Supplier<String> detail;
  private volatile Runnable refresh;
  private long fractionDone = -1;
  private long fractionTotal = -1;
  private boolean lineShown;
  // the rate shown is over the last few seconds, not since the start of the phase
  private long rateFromNs;
  private long rateFromDone;
  private double recentRate = Double.NaN;

  private record Phase(String name, String unit, long total, long startNs) {}

  private Progress(String command, Mode mode, PrintWriter out, Duration plainEvery) {
    this.command = command;
    this.mode = mode;
    this.out = out;
    this.plainEveryNs = plainEvery.toNanos();
    this.phase = new Phase("", "records", -1, System.nanoTime());
    if (mode == Mode.QUIET) {
      renderer = null;
    } else {
      renderer = new Thread(this::render, command + "-progress");
      renderer.setDaemon(true);
      renderer.start();
    }
  }

  /** Progress of {@code command} (e.g. "export") shown on {@code out} as {@code mode} says. */
  public static Progress start(String command, Mode mode, PrintWriter out) {
    return new Progress(command, mode, out, PLAIN_EVERY);
  }

  /** Same, on a stream. */
  public static Progress start(String command, Mode mode, PrintStream out) {
    return start(command, mode, new PrintWriter(out, true));
  }

  /** Same, with plain lines every {@code plainEvery} (tests). */
  public static Progress start(String command, Mode mode, PrintWriter out, Duration plainEvery) {
    return new Progress(command, mode, out, plainEvery);
  }

  /** Progress that shows nothing; warnings still go to stderr. */
  public static Progress quiet() {
    return start("", Mode.QUIET, System.err);
  }

  public Mode mode() {
    return mode;
  }

  /**
   * Starts a phase: counting from zero in {@code unit} (e.g. "records"), {@code total} when known
   * (else -1) for a percent and an ETA.
   */
  public void phase(String name, String unit, long total) {
    synchronized (lock) {
      done.set(0);
      fractionDone = -1;
      fractionTotal = -1;
      long now = System.nanoTime();
      rateFromNs = now;
      rateFromDone = 0;
      recentRate = Double.NaN;
      phase = new Phase(name, unit, total, now);
      started = true;
    }
  }

  /** Sets the phase's total once it is known. */
  public void total(long total) {
    Phase p = phase;
    phase = new Phase(p.name(), p.unit(), total, p.startNs());
  }

  /** Counts {@code n} more units of the current phase. */
  public void add(long n) {
    done.addAndGet(n);
  }

  /** Sets the count of the current phase. */
  public void set(long n) {
    done.set(n);
  }

  /** The count of the current phase. */
  public long done() {
    return done.get();
  }

  /**
   * Takes the percent and ETA from another measure than the count (e.g. bytes of a file read while
   * counting records).
   */
  public void fraction(long part, long whole) {
    synchronized (lock) {
      fractionDone = part;
      fractionTotal = whole;
    }
  }

  /**
   * Called before each line is drawn, for work whose count is polled rather than pushed (a
   * producer's finished requests).
   */
  public void refresh(Runnable before) {
    this.refresh = before;
  }

  /** Extra text at the end of the line (e.g. "3 in flight, 0 errors"), or null. */
  public void detail(Supplier<String> text) {
    this.detail = text;
  }

  /** Prints an informational message without tearing the live line (not when quiet). */
  public void println(String message) {
    if (mode == Mode.QUIET) {
      return;
    }
    warn(message);
  }

  /** Prints a warning (a skipped line, a risk of losing data), even when quiet. */
  public void warn(String message) {
    synchronized (lock) {
      clearLine();
      out.println(message);
      out.flush();
    }
  }

  /** Stops showing progress and prints {@code message} (the command's result line), if any. */
  public void finish(String message) {
    if (finished) {
      return;
    }
    finished = true;
    if (renderer != null) {
      renderer.interrupt();
      try {
        renderer.join(1_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (mode == Mode.QUIET) {
      return;
    }
    synchronized (lock) {
      clearLine();
      if (message != null) {
        out.println(message);
      }
      out.flush();
    }
  }

  /** When the current phase began, in {@link System#nanoTime()} terms. */
  long phaseStartNs() {
    return phase.startNs();
  }

  /** Elapsed time of the current phase. */
  public Duration phaseElapsed() {
    return Duration.ofNanos(System.nanoTime() - phase.startNs());
  }

  @Override
  public void close() {
    finish(null);
  }

  /** The line as it would be shown now. */
  public String line() {
    synchronized (lock) {
      return lineAt(System.nanoTime());
    }
  }

  private void render() {
    long lastPlainNs = System.nanoTime();
    while (!finished) {
      try {
        Thread.sleep(mode == Mode.LIVE ? LIVE_EVERY_NS / 1_000_000 : 250);
      } catch (InterruptedException e) {
        return;
      }
      if (finished) {
        return;
      }
      long now = System.nanoTime();
      if (!started) {
        continue; // nothing to say before the first phase (a connection still being made)
      }
      Runnable before = refresh;
      if (before != null && (mode == Mode.LIVE || now - lastPlainNs >= plainEveryNs)) {
        before.run();
      }
      synchronized (lock) {
        if (mode == Mode.LIVE) {
          out.print("\r" + lineAt(now) + "\033[K");
          out.flush();
          lineShown = true;
        } else if (now - lastPlainNs >= plainEveryNs) {
          out.println(lineAt(now));
          out.flush();
          lastPlainNs = now;
        }
      }
    }
  }

  private void clearLine() {
    if (lineShown) {
      out.print("\r\033[K");
      lineShown = false;
    }
  }

  /** The line as it would be shown at {@code nowNs} (tests give made-up times). */
  String lineAt(long nowNs) {
    Phase p = phase;
    long count = done.get();
    double elapsedS = (nowNs - p.startNs()) / 1e9;
    // the average since the phase began until a first 2 s span is over: a rate from the first
    // quarter second (records counted in batches of thousands) would be shown for two seconds
    if (nowNs - rateFromNs >= 2_000_000_000L) {
      recentRate = (count - rateFromDone) / ((nowNs - rateFromNs) / 1e9);
      rateFromNs = nowNs;
      rateFromDone = count;
    }
    StringBuilder line = new StringBuilder(command).append(':');
    if (!p.name().isEmpty()) {
      line.append(' ').append(p.name());
    }
    line.append(' ').append(String.format(Locale.ROOT, "%,d", count));
    if (p.total() >= 0) {
      line.append(String.format(Locale.ROOT, "/%,d", p.total()));
    }
    line.append(' ').append(p.unit());
    double fraction = fractionNow(p, count);
    if (!Double.isNaN(fraction)) {
      line.append(String.format(Locale.ROOT, "  %.1f%%", 100 * fraction));
    }
    double rate = Double.isNaN(recentRate) ? (elapsedS > 0 ? count / elapsedS : 0) : recentRate;
    line.append(String.format(Locale.ROOT, "  %,.0f %s/s", rate, p.unit()));
    if (!Double.isNaN(fraction) && fraction > 0 && elapsedS > 1) {
      double remainingS = elapsedS * (1 - fraction) / fraction;
      line.append("  ETA ").append(clock(remainingS));
    }
    line.append("  ").append(clock(elapsedS)).append(" elapsed");
    Supplier<String> d = detail;
    if (d != null) {
      String text = d.get();
      if (text != null && !text.isEmpty()) {
        line.append("  ").append(text);
      }
    }
    return line.toString();
  }

  private double fractionNow(Phase p, long count) {
    if (fractionTotal > 0 && fractionDone >= 0) {
      return Math.min(1.0, (double) fractionDone / fractionTotal);
    }
    if (p.total() > 0) {
      return Math.min(1.0, (double) count / p.total());
    }
    return Double.NaN;
  }

  /** {@code 0:07}, {@code 12:03}, {@code 1:02:03}. */
  static String clock(double seconds) {
    long s = Math.max(0, Math.round(seconds));
    if (s >= 3600) {
      return String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
    }
    return String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
  }

  /** True when stderr is a terminal (Linux: fd 2 is a tty; elsewhere: the JVM has a console). */
  static boolean stderrIsTerminal() {
    try {
      String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
      return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return System.console() != null;
    }
  }
}

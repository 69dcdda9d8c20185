package io.tpotstream.producer.traffic;

import io.tpotstream.producer.config.ConfigException;
import io.tpotstream.producer.workload.TraceFile;
import io.tpotstream.producer.workload.TraceReader;
import io.tpotstream.producer.workload.TraceRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The intended send times of a trace's requests ({@link TraceSchedule}), read from the file as they
 * come due (one line held at a time): each request of the window at its offset from the window's
 * start over the speed, pass after pass when looping. A pass with no request in the window ends the
 * replay, so that a changed file never spins. A line the replay cannot read (the file changed since
 * it was checked) ends the replay with an error in the log. Not thread-safe.
 */
public final class TraceReplay implements Schedule {
  private static final Logger LOG = LoggerFactory.getLogger(TraceReplay.class);

  /**
   * A request due: the {@code n}th of the replay (from 0), in its {@code pass} (from 0).
   *
   * @param n its number in the replay (passes included), from 0
   * @param pass how many times the trace had been played before it
   */
  public record Entry(long n, int pass, TraceRequest request) {}

  private final TraceSchedule schedule;
  private final boolean loop;
  private final long fromMs;
  private final long toMs;
  private final long periodMs;
  private TraceReader reader;
  private int pass;
  private long n;
  private boolean anyInPass;
  private boolean over;
  private Entry current;

  TraceReplay(TraceSchedule schedule, boolean loop) {
    this.schedule = schedule;
    this.loop = loop;
    TraceFile.Part window = schedule.file().window();
    this.fromMs = window.fromMs();
    this.toMs = window.toMs();
    this.periodMs = schedule.periodMs();
  }

  @Override
  public long nextNs() {
    while (!over) {
      if (reader == null) {
        reader = schedule.file().open();
      }
      TraceRequest r;
      try {
        r = reader.next();
      } catch (ConfigException e) {
        LOG.error(
            "the trace changed since it was checked; its replay ends here: {}", e.getMessage());
        end();
        return -1;
      }
      if (r == null || r.offsetMs() >= toMs) {
        reader.close();
        reader = null;
        if (!loop || !anyInPass) {
          end();
          return -1;
        }
        pass++;
        anyInPass = false;
        continue;
      }
      if (r.offsetMs() < fromMs) {
        continue;
      }
      anyInPass = true;
      current = new Entry(n++, pass, r);
      double ms = (r.offsetMs() - fromMs) + (double) pass * periodMs;
      return Math.round(ms * 1e6 / schedule.speed());
    }
    return -1;
  }

  @Override
  public Entry due() {
    return current;
  }

  @Override
  public void close() {
    end();
  }

  private void end() {
    over = true;
    current = null;
    if (reader != null) {
      reader.close();
      reader = null;
    }
  }
}

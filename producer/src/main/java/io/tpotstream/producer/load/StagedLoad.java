package io.tpotstream.producer.load;

import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.traffic.Sweep;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stages of a run, one {@link LoadRunner} after another: one stage without a sweep, one per
 * load of a {@code sweep}. A stage starts when every request of the one before has finished, so
 * that no request of one load overlaps the next. A stop ends the stage under way and starts no
 * other.
 */
public final class StagedLoad {
  private static final Logger LOG = LoggerFactory.getLogger(StagedLoad.class);

  private record Stage(String name, ProducerConfig config) {}

  private final List<Stage> stages = new ArrayList<>();
  private final BiFunction<ProducerConfig, String, LoadRunner> runners;
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private volatile LoadRunner current;
  private volatile LoadRunner first;
  private volatile boolean stopped;
  private long issuedBefore;
  private long notSentBefore;

  /**
   * @param runners makes the load runner of a stage from its config and its name (null without a
   *     sweep); called when the stage starts
   */
  public StagedLoad(ProducerConfig config, BiFunction<ProducerConfig, String, LoadRunner> runners) {
    this.runners = runners;
    Sweep sweep = config.sweep();
    if (sweep == null) {
      stages.add(new Stage(null, config));
    } else {
      for (Sweep.Stage s : sweep.stages()) {
        stages.add(new Stage(s.name(), config.forStage(s, stages.isEmpty())));
      }
    }
  }

  /** Starts the first stage; the future completes when the last stage has finished. */
  public CompletableFuture<Void> start() {
    next(0);
    return done;
  }

  private void next(int i) {
    if (i >= stages.size() || stopped) {
      done.complete(null);
      return;
    }
    Stage stage = stages.get(i);
    if (stage.name() != null) {
      LOG.info("stage {} of {}: {}", i + 1, stages.size(), stage.name());
    }
    LoadRunner runner;
    synchronized (this) {
      if (current != null) {
        issuedBefore += current.issued();
        notSentBefore += current.notSent();
      }
      runner = runners.apply(stage.config(), stage.name());
      current = runner;
      if (first == null) {
        first = runner;
      }
    }
    runner
        .start()
        .whenComplete(
            (v, error) -> {
              if (error != null) {
                done.completeExceptionally(error);
              } else {
                next(i + 1);
              }
            });
  }

  /** Stops the stage under way (see {@link LoadRunner#stop}); no later stage starts. */
  public void stop(Duration grace) {
    stopped = true;
    LoadRunner runner = current;
    if (runner != null) {
      runner.stop(grace);
    }
  }

  /** Requests in flight now. */
  public int inFlight() {
    LoadRunner runner = current;
    return runner == null ? 0 : runner.inFlight();
  }

  /** Due open-loop requests never sent because the run stopped. */
  public synchronized long notSent() {
    return notSentBefore + (current == null ? 0 : current.notSent());
  }

  /** Warm-up requests handed out so far (the warm-up runs before the first stage only). */
  public long warmupIssued() {
    LoadRunner runner = first;
    return runner == null ? 0 : runner.warmupIssued();
  }

  /** True while the warm-up is under way. */
  public boolean warmingUp() {
    LoadRunner runner = current;
    return runner != null && runner == first && runner.warmingUp();
  }

  /** How the warm-up ended (see {@link LoadRunner#warmupEnd}); null while it lasts or for none. */
  public LoadRunner.WarmupEnd warmupEnd() {
    LoadRunner runner = first;
    return runner == null ? null : runner.warmupEnd();
  }

  /** Requests handed out so far, every stage (warm-up included). */
  public synchronized long issued() {
    return issuedBefore + (current == null ? 0 : current.issued());
  }
}

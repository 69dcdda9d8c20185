package io.tpotstream.sink;

import java.nio.file.Path;

/**
 * A sink in its own JVM, for crash tests. Prints {@code committed <total>} after each committed
 * batch; with a batch number as last argument it halts (no shutdown hook, no close: as abrupt as
 * SIGKILL) in that batch, after the files are written and the metrics records sent, before the
 * commit.
 *
 * <p>Arguments: bootstrap servers, input topic, group id, CSV path, metrics topic, max poll
 * records, batch to halt in (0: never).
 */
public final class SinkChild {
  private SinkChild() {}

  public static void main(String[] args) throws InterruptedException {
    int haltInBatch = Integer.parseInt(args[6]);
    SinkConfig config =
        SinkConfig.builder(args[0])
            .inputTopic(args[1])
            .groupId(args[2])
            .csv(Path.of(args[3]))
            .metricsTopic(args[4])
            .noPrometheus()
            .maxPollRecords(Integer.parseInt(args[5]))
            .listener(
                new SinkListener() {
                  private int batches;

                  @Override
                  public void beforeCommit(int summaries) {
                    if (++batches == haltInBatch) {
                      System.out.println("halting before commit of batch " + batches);
                      System.out.flush();
                      Runtime.getRuntime().halt(137);
                    }
                  }

                  @Override
                  public void committed(int summaries, long totalWritten) {
                    System.out.println("committed " + totalWritten);
                    System.out.flush();
                  }
                })
            .build();
    Sink.start(config).await();
  }
}

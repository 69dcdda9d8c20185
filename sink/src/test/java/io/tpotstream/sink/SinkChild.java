package io.tpotstream.sink;

import java.nio.file.Path;

/**
 * A sink in its own JVM, for crash tests. Prints {@code committed <total>} after each committed
 * batch. With {@code halt:N} as last argument it halts (no shutdown hook, no close: as abrupt as
 * SIGKILL) in batch N, after the files are written and the metrics records sent, before the commit;
 * with {@code hold:N} it stops in its loop once batch N is committed, for the test to kill it
 * there.
 *
 * <p>Arguments: bootstrap servers, input topic, group id, CSV path, metrics topic, max poll
 * records, {@code halt:N} or {@code hold:N}.
 */
public final class SinkChild {
  private SinkChild() {}

  public static void main(String[] args) throws InterruptedException {
    String[] at = args[6].split(":");
    int haltInBatch = at[0].equals("halt") ? Integer.parseInt(at[1]) : 0;
    int holdAfterBatch = at[0].equals("hold") ? Integer.parseInt(at[1]) : 0;
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
                    if (batches == holdAfterBatch) {
                      try {
                        Thread.sleep(Long.MAX_VALUE); // until killed
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                    }
                  }
                })
            .build();
    Sink.start(config).await();
  }
}

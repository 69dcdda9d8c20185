package io.tpotstream.producer.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * An {@code Error} or an unexpected exception on the publisher thread stops publishing loudly: the
 * failure handler hears it (the producer stops its run, the proxy stops) and {@link
 * Publisher#finish} fails with it, where the thread used to end as if all went well. Under the
 * proxy's policy, which needs no Kafka to start; the error comes from the loop-lag source the
 * thread reads at each heartbeat.
 */
class PublisherThreadFailureTest {
  @Test
  void anOutOfMemoryErrorOnThePublisherThreadStopsPublishingLoudly() throws Exception {
    OutOfMemoryError error = new OutOfMemoryError("Java heap space (injected)");
    PublishException failure = failWith(error);
    assertTrue(
        failure
            .getMessage()
            .startsWith(
                "the publisher thread failed (OutOfMemoryError: Java heap space (injected)); "),
        failure.getMessage());
    assertTrue(
        failure
            .getMessage()
            .endsWith("give it more heap (TPOT_HEAP_OPTS=-Xmx…) or fewer streams" + " at once"),
        failure.getMessage());
    assertSame(error, failure.getCause());
  }

  @Test
  void anUnexpectedExceptionOnThePublisherThreadIsNamedABugNotAKafkaFailure() throws Exception {
    PublishException failure = failWith(new IllegalStateException("injected"));
    assertTrue(
        failure.getMessage().startsWith("the publisher thread failed (IllegalStateException: "),
        failure.getMessage());
    assertTrue(
        failure
            .getMessage()
            .endsWith("a bug in tpot: please report it with the stack" + " trace above"),
        failure.getMessage());
  }

  private static PublishException failWith(Throwable error) throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    LongSupplier loopLag =
        () -> {
          if (error instanceof Error e) {
            throw e;
          }
          throw (RuntimeException) error;
        };
    try (PauseMeter pauseMeter = PauseMeter.start()) {
      Publisher publisher =
          Publisher.open(
              KafkaSettings.of("127.0.0.1:" + port),
              new Publisher.Wiring(
                  "run",
                  "producer",
                  AnchoredClock.start(),
                  pauseMeter,
                  loopLag,
                  new Handoff(16),
                  null),
              OutagePolicy.drop());
      CompletableFuture<PublishException> heard = new CompletableFuture<>();
      publisher.onFailure(heard::complete);
      PublishException failure = heard.join();
      CompletionException finished =
          assertThrows(CompletionException.class, () -> publisher.finish().join());
      assertSame(failure, finished.getCause());
      assertEquals(failure, publisher.failure().orElseThrow());
      return failure;
    }
  }
}

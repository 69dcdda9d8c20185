package io.tpotstream.common;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waiting on a plain thread for an asynchronous step (e.g. a Vert.x future's {@code
 * toCompletionStage()}): the simulator's and the proxy's start and stop.
 */
public final class Waits {
  private Waits() {}

  /**
   * The result of {@code stage} within {@code seconds}. A failure becomes an {@link
   * IllegalStateException} with the cause's message; running out of time one saying "{@code
   * notDone} within N s"; an interrupt (the flag kept) one saying {@code interrupted}.
   */
  public static <T> T await(
      CompletionStage<T> stage, long seconds, String notDone, String interrupted) {
    try {
      return stage.toCompletableFuture().get(seconds, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw new IllegalStateException(
          cause.getMessage() != null ? cause.getMessage() : cause.toString(), cause);
    } catch (TimeoutException e) {
      throw new IllegalStateException(notDone + " within " + seconds + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(interrupted, e);
    }
  }

  /** Waits up to {@code seconds} for {@code stage} and ignores its failure: best-effort closing. */
  public static void quietly(CompletionStage<?> stage, long seconds) {
    try {
      stage.toCompletableFuture().get(seconds, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      // closing is best effort
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

package io.tpotstream.archive;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A thread of its own that takes the items handed to it, through a bounded queue, one at a time
 * until {@link #close()}, so that the caller's work and the item's work use two cores: {@link
 * ArchiveWriter} compresses and writes its chunks in one, the exporter makes archive lines in one.
 * The first failure of the work stops the thread and is thrown, as "cannot write {@code subject}",
 * by the next {@link #put} or by {@link #close()}; nothing more is taken after it.
 *
 * @param <T> what is handed off
 */
public final class HandOffThread<T> implements Closeable {
  /** What the thread does with each item. */
  @FunctionalInterface
  public interface Work<T> {
    void accept(T item) throws Exception;
  }

  private static final Object LAST = new Object();

  private final Object subject;
  private final Work<? super T> work;
  private final Closeable end;
  private final BlockingQueue<Object> queue;
  private final Thread thread;
  private volatile Throwable failure;
  private boolean closed;

  /**
   * Starts the thread.
   *
   * @param name the thread's name
   * @param capacity how many items may wait before {@link #put} blocks
   * @param subject what is written, for the messages (a file)
   * @param work what the thread does with each item
   * @param end closed by the thread when it stops, after the last item or a failure
   */
  public HandOffThread(
      String name, int capacity, Object subject, Work<? super T> work, Closeable end) {
    this.subject = subject;
    this.work = work;
    this.end = end;
    this.queue = new ArrayBlockingQueue<>(capacity);
    thread = new Thread(this::run, name);
    thread.setDaemon(true);
    thread.start();
  }

  /** Hands {@code item} to the thread, waiting while the queue is full. */
  public void put(T item) throws IOException {
    check();
    try {
      while (!queue.offer(item, 100, TimeUnit.MILLISECONDS)) {
        check();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while writing " + subject);
    }
    check();
  }

  /** Throws the work's failure, if it failed. */
  public void check() throws IOException {
    Throwable failed = failure;
    if (failed != null) {
      throw new IOException("cannot write " + subject + ": " + failed.getMessage(), failed);
    }
  }

  /** Lets the thread finish what is queued, waits for it, and throws its failure if any. */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (failure == null) {
        queue.put(LAST);
      }
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while finishing " + subject);
    }
    check();
  }

  @SuppressWarnings("unchecked")
  private void run() {
    try (end) {
      for (Object next = queue.take(); next != LAST; next = queue.take()) {
        work.accept((T) next);
      }
    } catch (InterruptedException e) {
      failure = new InterruptedIOException(thread.getName() + " interrupted");
    } catch (Throwable e) {
      failure = e;
      queue.clear(); // a put waiting on a full queue goes through, and then sees the failure
    }
  }
}

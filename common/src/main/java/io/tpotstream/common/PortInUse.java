package io.tpotstream.common;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * A port a server of ours cannot listen on, in one line that names it and what to choose instead
 * ({@code tpot simulate} and {@code tpot broker} word it alike); and the check {@code tpot broker}
 * makes before Kafka tries the port (Kafka would log pages of stack traces first).
 */
public final class PortInUse {
  private PortInUse() {}

  /**
   * "cannot listen on {@code where} ({@code cause}): is another server using this port? choose
   * another {@code option}".
   */
  public static String message(String where, String cause, String option) {
    return "cannot listen on "
        + where
        + " ("
        + cause
        + "): is another server using this port? choose another "
        + option;
  }

  /**
   * Fails when {@code host:port} cannot be listened on now (port 0, any free one, always can).
   *
   * @throws IllegalStateException with {@link #message}
   */
  public static void check(String host, int port, String option) {
    if (port == 0) {
      return;
    }
    try (ServerSocket probe = new ServerSocket()) {
      probe.setReuseAddress(true); // as a server binds: a closed connection's TIME_WAIT is no user
      probe.bind(new InetSocketAddress(host, port));
    } catch (IOException e) {
      throw new IllegalStateException(message(host + ":" + port, e.getMessage(), option), e);
    }
  }
}

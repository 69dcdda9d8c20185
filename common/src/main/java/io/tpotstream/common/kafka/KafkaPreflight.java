package io.tpotstream.common.kafka;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Node;

/**
 * The check every Kafka-facing command makes before it starts, so that the common mistakes end in
 * one clear line within {@link KafkaConnection#timeout()} instead of a silent wait: nothing listens
 * at the address (a plain TCP connect to each bootstrap server), the listener speaks another
 * protocol, or authentication fails (one admin call, which authenticates).
 */
public final class KafkaPreflight {
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  private KafkaPreflight() {}

  /** What a command does with the checked connection's admin client, before it is closed. */
  public interface AfterCheck<T> {
    T apply(Admin admin, Collection<Node> brokers) throws InterruptedException;
  }

  /**
   * Returns the cluster's brokers once one has answered an authenticated request.
   *
   * @throws KafkaAccessException with what to check
   */
  public static Collection<Node> check(KafkaConnection c) {
    return check(c, (admin, brokers) -> brokers);
  }

  /**
   * {@link #check(KafkaConnection)}, then {@code then} with the same admin client (one client, one
   * connection and one authentication instead of two: a tenth of a second of a command's start).
   *
   * @throws KafkaAccessException with what to check
   */
  public static <T> T check(KafkaConnection c, AfterCheck<T> then) {
    probe(c);
    Admin admin;
    Collection<Node> brokers;
    try {
      admin = Admin.create(c.adminProperties());
    } catch (org.apache.kafka.common.KafkaException e) {
      throw badSettings(c, e);
    }
    try {
      try {
        brokers =
            admin
                .describeCluster(
                    new DescribeClusterOptions().timeoutMs((int) c.timeout().toMillis()))
                .nodes()
                .get(c.timeout().toMillis() + 1_000, TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        throw KafkaFailures.explain(e.getCause(), c, KafkaNeeds.none(), "reach the cluster");
      } catch (TimeoutException e) {
        throw KafkaFailures.noAnswer(c, "reach the cluster", e);
      } catch (org.apache.kafka.common.KafkaException e) {
        throw badSettings(c, e);
      }
      return then.apply(admin, brokers);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaAccessException("interrupted while connecting to Kafka", e);
    } finally {
      admin.close(Duration.ZERO);
    }
  }

  /** The client could not even be built, or refused a call: a bad setting in the file. */
  private static KafkaAccessException badSettings(
      KafkaConnection c, org.apache.kafka.common.KafkaException e) {
    return new KafkaAccessException(
        "cannot use the Kafka client settings of "
            + c.configFileName()
            + ": "
            + KafkaFailures.said(e)
            + "; check the file",
        e);
  }

  /**
   * Connects to each bootstrap server over plain TCP; returns when one accepts.
   *
   * @throws KafkaAccessException naming each address and what went wrong with it
   */
  public static void probe(KafkaConnection c) {
    List<String> problems = new ArrayList<>();
    Duration connectTimeout =
        c.timeout().compareTo(CONNECT_TIMEOUT) < 0 ? c.timeout() : CONNECT_TIMEOUT;
    for (String server : c.bootstrapServers().split(",")) {
      String address = server.trim();
      if (address.isEmpty()) {
        continue;
      }
      int colon = address.lastIndexOf(':');
      if (colon <= 0 || colon == address.length() - 1) {
        problems.add(address + " has no port (write host:port)");
        continue;
      }
      String host = address.substring(0, colon).replace("[", "").replace("]", "");
      int port;
      try {
        port = Integer.parseInt(address.substring(colon + 1));
      } catch (NumberFormatException e) {
        problems.add(address + " has no valid port");
        continue;
      }
      InetAddress[] ips;
      try {
        ips = InetAddress.getAllByName(host);
      } catch (UnknownHostException e) {
        problems.add(host + " is an unknown host name");
        continue;
      }
      for (InetAddress ip : ips) {
        try (Socket socket = new Socket()) {
          socket.connect(new InetSocketAddress(ip, port), (int) connectTimeout.toMillis());
          return;
        } catch (ConnectException e) {
          problems.add(address + " refused the connection (nothing listens there)");
        } catch (SocketTimeoutException e) {
          problems.add(
              address
                  + " did not accept a connection within "
                  + KafkaFailures.seconds(connectTimeout));
        } catch (IOException e) {
          problems.add(address + ": " + e.getMessage());
        }
      }
    }
    throw new KafkaAccessException(
        "no Kafka broker at "
            + c.describe()
            + ": "
            + String.join("; ", problems.stream().distinct().toList())
            + ". Check the address and port (--bootstrap-server, bootstrap.servers in the"
            + " --kafka-config file or KAFKA_BOOTSTRAP_SERVERS), that the broker is running and"
            + " that this machine can reach it");
  }
}

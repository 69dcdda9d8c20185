package io.tpotstream.app.cli;

import static io.tpotstream.app.cli.TpotCli.tpot;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/**
 * A server command whose port is taken stops with one line naming the port and suggesting another
 * --port, and exit status 2: {@code broker} as {@code simulate}, before Kafka tries the port.
 */
class PortTakenTest {
  @Test
  void aBrokerOnATakenPortSaysSoInOneLineAndNothingElse() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
      int port = taken.getLocalPort();

      TpotCli.Result r = tpot("broker", "--port", Integer.toString(port));

      assertEquals(2, r.exit());
      assertEquals(
          "tpot broker: cannot listen on 127.0.0.1:"
              + port
              + " (Address already in use): is another server using this port? choose another"
              + " --port\n",
          r.err());
      assertEquals("", r.out());
    }
  }

  @Test
  void aSimulatorOnATakenPortSaysItAlike() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
      int port = taken.getLocalPort();

      TpotCli.Result r = tpot("simulate", "--port", Integer.toString(port));

      assertEquals(2, r.exit());
      String err = r.err();
      assertTrue(err.startsWith("tpot simulate: cannot listen on 127.0.0.1:" + port + " ("), err);
      assertTrue(
          err.endsWith("): is another server using this port? choose another --port\n"), err);
      assertEquals(1, err.lines().count(), err);
    }
  }
}

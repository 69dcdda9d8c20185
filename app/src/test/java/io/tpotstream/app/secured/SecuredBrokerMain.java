package io.tpotstream.app.secured;

import io.tpotstream.broker.LocalKafka;
import java.nio.file.Path;

/**
 * By hand: the tests' secured broker with the documented ACLs for user {@value
 * SecuredCluster#USER}, until stdin closes. Prints the address and writes the user's properties
 * files (right and wrong password, SASL_SSL) into the directory given as the only argument.
 */
public final class SecuredBrokerMain {
  private SecuredBrokerMain() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    LocalKafka kafka = SecuredCluster.broker();
    SecuredCluster.propertiesFile(dir, "client.properties", SecuredCluster.PASSWORD, false);
    SecuredCluster.propertiesFile(dir, "wrong.properties", "wrong-password", false);
    SecuredCluster.tlsPropertiesFile(
        dir, "tls.properties", SecuredCluster.stores().resolve("truststore.p12"));
    System.out.println("ready " + kafka.bootstrapServers() + " tls " + kafka.tlsBootstrapServers());
    System.out.flush();
    while (System.in.read() >= 0) {
      // until stdin closes
    }
    kafka.stop();
    System.exit(0);
  }
}

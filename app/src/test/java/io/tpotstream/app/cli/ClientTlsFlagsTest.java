package io.tpotstream.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.producer.http.ClientTls;
import io.tpotstream.producer.http.TlsFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.ParseResult;

/**
 * The TLS flags of the producer's commands set their config keys (files from the working
 * directory); the proxy's upstream flags, named alike, make the same settings.
 */
class ClientTlsFlagsTest {
  @TempDir Path dir;

  private static Object command(String... args) {
    ParseResult parsed = Tpot.commandLine().parseArgs(args);
    return parsed.subcommand().commandSpec().userObject();
  }

  private Path pem(String name) throws IOException {
    return Files.writeString(dir.resolve(name), "-----BEGIN CERTIFICATE-----\n");
  }

  @Test
  void produceRunAndModelsSetTheConfigKeys() {
    Map<String, String> expected =
        Map.of(
            "ca_file", Path.of("ca.pem").toAbsolutePath().toString(),
            "client_cert", Path.of("c.pem").toAbsolutePath().toString(),
            "client_key", Path.of("k.pem").toAbsolutePath().toString(),
            "insecure", "true");
    String[] flags = {
      "--ca-file", "ca.pem", "--client-cert", "c.pem", "--client-key", "k.pem", "--insecure"
    };
    assertEquals(
        expected,
        ((ProduceCommand) command(with("produce", flags))).configOptions.overrides(Map.of()));
    assertEquals(
        expected, ((RunCommand) command(with("run", flags))).configOptions.overrides(Map.of()));
    assertEquals(
        expected,
        ((ModelsCommand) command(with("models", flags))).configOptions.overrides(Map.of()));
  }

  private static String[] with(String command, String[] flags) {
    String[] all = new String[flags.length + 1];
    all[0] = command;
    System.arraycopy(flags, 0, all, 1, flags.length);
    return all;
  }

  @Test
  void theProxysUpstreamFlagsMakeTheSameSettings() throws IOException {
    Path ca = pem("ca.pem");
    Path cert = pem("client.pem");
    Path key = pem("client-key.pem");
    ProxyCommand proxy =
        (ProxyCommand)
            command(
                "proxy",
                "--listen",
                "0",
                "--upstream",
                "https://llm.internal",
                "--upstream-ca",
                ca.toString(),
                "--upstream-client-cert",
                cert.toString(),
                "--upstream-client-key",
                key.toString(),
                "--upstream-insecure");
    ClientTls tls = proxy.config().upstreamTls();
    assertEquals(new TlsFiles(ca, cert, key), tls.files());
    assertEquals("--upstream-ca", tls.caSource());
    assertTrue(tls.insecure());
  }
}

package io.tpotstream.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/** A mistake on {@code tpot proxy}'s command line is one line that says what to write instead. */
class ProxyCommandTest {
  private static String firstErrorLine(String... args) {
    CommandLine tpot = Tpot.commandLine();
    StringWriter err = new StringWriter();
    tpot.setErr(new PrintWriter(err));
    assertEquals(2, tpot.execute(args));
    return err.toString().strip().lines().findFirst().orElse("");
  }

  @Test
  void aListenAddressThatIsNoPortSaysHowToWriteIt() {
    assertEquals(
        "--listen 'localhost': expected a port or HOST:PORT, e.g. 8080 or 0.0.0.0:8080",
        firstErrorLine("proxy", "--listen", "localhost", "--upstream", "http://127.0.0.1:1"));
  }

  @Test
  void anUpstreamThatIsNotHttpSaysWhatItMustBe() {
    assertEquals(
        "--upstream 'ftp://models.example' must start with http:// or https:// (e.g."
            + " https://api.openai.com or http://127.0.0.1:8000)",
        firstErrorLine("proxy", "--listen", "0", "--upstream", "ftp://models.example"));
  }

  @Test
  void theRouteLabelIsTheProxysOwn() {
    assertEquals(
        "--label-header: the label 'route' is the request's API route (/v1/chat/completions,"
            + " /v1/completions or /v1/messages); choose another name",
        firstErrorLine(
            "proxy", "--listen", "0", "--upstream", "http://h", "--label-header", "X-Path=route"));
  }

  @Test
  void aSampleOutsideZeroToOneIsRefused() {
    assertEquals(
        "--sample: a fraction from 0 to 1 (0.1 measures one request in ten), got 10.0",
        firstErrorLine("proxy", "--listen", "0", "--upstream", "http://h", "--sample", "10"));
  }

  @Test
  void clientAuthIsNoneRequestOrRequiredAndNeedsAClientCa() {
    assertEquals(
        "--client-auth 'maybe': expected none, request or required",
        firstErrorLine(
            "proxy", "--listen", "0", "--upstream", "http://h", "--client-auth", "maybe"));
    assertEquals(
        "--client-auth request checks client certificates against a CA: give it with"
            + " --tls-client-ca (and serve HTTPS with --tls-cert and --tls-key)",
        firstErrorLine(
            "proxy", "--listen", "0", "--upstream", "http://h", "--client-auth", "request"));
  }

  @Test
  void theClientTimeoutsDefaultTo30sForHeadersAnd120sIdle() {
    ProxyCommand defaults = proxy();
    assertEquals(Duration.ofSeconds(30), defaults.config().clientHeaderTimeout());
    assertEquals(Duration.ofSeconds(120), defaults.config().clientIdleTimeout());
    ProxyCommand set = proxy("--client-header-timeout", "5s", "--client-idle-timeout", "0");
    assertEquals(Duration.ofSeconds(5), set.config().clientHeaderTimeout());
    assertEquals(Duration.ZERO, set.config().clientIdleTimeout());
  }

  @Test
  void prefixHashesAreOffByDefaultAndTheirKeyFileGoesWithTheFlag(@TempDir Path dir)
      throws Exception {
    assertNull(proxy().config().prefixHashKey());
    assertEquals(
        "a random key of this start (ids comparable within it only)",
        proxy("--capture-prefix-hashes").config().prefixHashKey().origin());
    Path key = Files.write(dir.resolve("proxy.key"), new byte[32]);
    assertEquals(
        "the key in " + key,
        proxy("--capture-prefix-hashes", "--prefix-hash-key-file", key.toString())
            .config()
            .prefixHashKey()
            .origin());
    assertEquals(
        "--prefix-hash-key-file is the key of --capture-prefix-hashes: give both, or neither",
        firstErrorLine(
            "proxy", "--listen", "0", "--upstream", "http://h", "--prefix-hash-key-file", "k"));
    Path empty = Files.write(dir.resolve("empty.key"), new byte[0]);
    assertEquals(
        "--prefix-hash-key-file "
            + empty
            + ": 0 bytes, fewer than the 16 a key needs (e.g. head -c 32 /dev/urandom > FILE)",
        firstErrorLine(
            "proxy",
            "--listen",
            "0",
            "--upstream",
            "http://h",
            "--capture-prefix-hashes",
            "--prefix-hash-key-file",
            empty.toString()));
  }

  private static ProxyCommand proxy(String... more) {
    List<String> args =
        new ArrayList<>(List.of("proxy", "--listen", "0", "--upstream", "http://h"));
    args.addAll(List.of(more));
    ParseResult parsed = Tpot.commandLine().parseArgs(args.toArray(String[]::new));
    return (ProxyCommand) parsed.subcommand().commandSpec().userObject();
  }
}

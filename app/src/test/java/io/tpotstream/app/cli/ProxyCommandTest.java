package io.tpotstream.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

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
}

package io.tpotstream.producer.http;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.producer.config.ConfigLoader;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.testkit.LogCapture;
import io.vertx.core.Vertx;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A connection reset by the other side in a healthy run (a warm-up's client going away, a server or
 * proxy ending a stream) is handled on the connection: a DEBUG line of ours, never Vert.x's
 * unhandled "ERROR ConnectionBase - recvAddress(..) failed with error(-104): Connection reset by
 * peer" that a user cannot act on.
 */
class ConnectionResetTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  /** Vert.x's and Netty's log lines (an unhandled connection error is one). */
  private static List<String> libraryLines(LogCapture logs) {
    return logs.lines().stream()
        .filter(l -> l.startsWith("io.vertx") || l.startsWith("io.netty"))
        .toList();
  }

  @Test
  void aClientThatResetsMidStreamLeavesTheSimulatorNoErrorLine() throws Exception {
    try (Simulator simulator = Simulator.start(SimulatorConfig.inProcess(List.of("m"), 5, 10));
        LogCapture logs = LogCapture.begin()) {
      int port = java.net.URI.create(simulator.baseUrl()).getPort();
      byte[] body =
          ("{\"model\":\"m\",\"stream\":true,\"max_tokens\":1000,"
                  + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
              .getBytes(StandardCharsets.UTF_8);
      try (Socket client = new Socket("127.0.0.1", port)) {
        OutputStream out = client.getOutputStream();
        out.write(
            ("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Type: application/json\r\nContent-Length: "
                    + body.length
                    + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        InputStream in = client.getInputStream();
        byte[] some = new byte[512];
        int read = 0;
        while (read < some.length) {
          read += in.read(some, read, some.length - read); // the head and the first chunks
        }
        client.setSoLinger(true, 0); // close with a reset, mid-stream
      }

      await()
          .atMost(WAIT)
          .until(
              () ->
                  logs.lines().stream()
                      .anyMatch(
                          l ->
                              l.startsWith(
                                  "io.tpotstream.simulator.api.SimulatorVerticle connection from")));
      assertEquals(List.of(), libraryLines(logs));
    }
  }

  @Test
  void aServerThatResetsTheConnectionFailsTheRequestAndLogsNoError() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
        LogCapture logs = LogCapture.begin()) {
      CompletableFuture<Void> served =
          CompletableFuture.runAsync(
              () -> {
                try (Socket peer = server.accept()) {
                  peer.getInputStream().read(new byte[4096]); // the request's head
                  OutputStream out = peer.getOutputStream();
                  out.write(
                      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"data\":["
                          .getBytes(StandardCharsets.US_ASCII));
                  out.flush();
                  peer.setSoLinger(true, 0); // reset, mid-answer
                } catch (java.io.IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              });
      ProducerConfig config =
          ConfigLoader.loadForListing(
              null,
              Map.of("base_url", "http://127.0.0.1:" + server.getLocalPort()),
              Map.of(),
              w -> {});
      Vertx vertx = Vertx.vertx();
      try {
        ExecutionException e =
            assertThrows(
                ExecutionException.class,
                () ->
                    ModelLister.list(vertx, config)
                        .toCompletionStage()
                        .toCompletableFuture()
                        .get(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertInstanceOf(ModelLister.RequestFailedException.class, e.getCause());
        served.get(WAIT.toSeconds(), TimeUnit.SECONDS);

        await()
            .atMost(WAIT)
            .until(
                () ->
                    logs.lines().stream()
                        .anyMatch(
                            l ->
                                l.startsWith(
                                    "io.tpotstream.producer.http.HttpClients connection to")));
        assertEquals(List.of(), libraryLines(logs));
        assertTrue(
            e.getCause().getMessage().contains("127.0.0.1:" + server.getLocalPort()),
            e.getCause().getMessage());
      } finally {
        vertx
            .close()
            .toCompletionStage()
            .toCompletableFuture()
            .get(WAIT.toSeconds(), TimeUnit.SECONDS);
      }
    }
  }
}

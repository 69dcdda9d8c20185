package io.tpotstream.proxy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A real HTTP/1.x server on a plain socket whose every answer a test writes byte by byte: what the
 * tests compare a proxied response with is what this server sent, with no HTTP library in between
 * to add, drop or reframe anything. Each connection has its own thread and carries requests until
 * the script or the client closes it.
 */
final class RawUpstream implements AutoCloseable {
  /** A request head as received; {@link Conversation#body()} reads its body. */
  record Head(String method, String target, String version, List<String> headerLines) {
    String header(String name) {
      for (String line : headerLines) {
        int colon = line.indexOf(':');
        if (line.substring(0, colon).trim().equalsIgnoreCase(name)) {
          return line.substring(colon + 1).trim();
        }
      }
      return null;
    }

    boolean http10() {
      return version.equals("HTTP/1.0");
    }
  }

  /** One request on a connection, for the script to answer. */
  static final class Conversation {
    final Head head;
    private final InputStream in;
    private final OutputStream out;

    Conversation(Head head, InputStream in, OutputStream out) {
      this.head = head;
      this.in = in;
      this.out = out;
    }

    /** Reads the request's body (Content-Length or chunked), as the client framed it. */
    byte[] body() throws IOException {
      String length = head.header("Content-Length");
      String te = head.header("Transfer-Encoding");
      if (te != null && te.toLowerCase(Locale.ROOT).contains("chunked")) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        int size;
        while ((size = Integer.parseInt(RawHttp.line(in).split(";")[0].trim(), 16)) > 0) {
          body.write(in.readNBytes(size));
          RawHttp.line(in);
        }
        while (!RawHttp.line(in).isEmpty()) {
          // trailers
        }
        return body.toByteArray();
      }
      return length == null ? new byte[0] : in.readNBytes(Integer.parseInt(length));
    }

    /** Blocks until the client closes the connection (true) or sends more bytes (false). */
    boolean closedByClient() throws IOException {
      try {
        return in.read() == -1;
      } catch (IOException e) {
        return true; // reset
      }
    }

    /** Writes raw bytes to the client, at once. */
    void write(byte[] bytes) throws IOException {
      out.write(bytes);
      out.flush();
    }

    void write(String text) throws IOException {
      write(text.getBytes(StandardCharsets.ISO_8859_1));
    }
  }

  /** Answers one request; returns false to close the connection after it. */
  @FunctionalInterface
  interface Script {
    boolean answer(Conversation c) throws Exception;
  }

  private final ServerSocket server;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private volatile Script script;

  RawUpstream(Script script) {
    this.script = script;
    try {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    threads.execute(this::accept);
  }

  int port() {
    return server.getLocalPort();
  }

  String baseUrl() {
    return "http://127.0.0.1:" + port();
  }

  void script(Script next) {
    script = next;
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        threads.execute(() -> serve(socket));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(Socket socket) {
    try (socket) {
      socket.setSoTimeout(30_000);
      socket.setTcpNoDelay(true);
      InputStream in = socket.getInputStream();
      OutputStream out = socket.getOutputStream();
      while (true) {
        String requestLine;
        try {
          requestLine = RawHttp.line(in);
        } catch (IOException e) {
          return; // the client closed between requests
        }
        String[] parts = requestLine.split(" ");
        List<String> headers = new ArrayList<>();
        String l;
        while (!(l = RawHttp.line(in)).isEmpty()) {
          headers.add(l);
        }
        Head head = new Head(parts[0], parts[1], parts[2], headers);
        if (!script.answer(new Conversation(head, in, out))) {
          return;
        }
      }
    } catch (Exception e) {
      // the connection ends; the test sees what the client read
    }
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      // closing
    }
    threads.shutdownNow();
  }
}

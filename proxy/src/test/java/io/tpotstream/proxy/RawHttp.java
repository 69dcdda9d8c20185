package io.tpotstream.proxy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A plain-socket HTTP/1.1 client that shows what is on the wire: the status line, every header line
 * in order, and the body after de-chunking (chunk boundaries are the transport's business, the body
 * bytes are not). One connection carries several requests (keep-alive).
 */
final class RawHttp implements AutoCloseable {
  /** A response as read from the socket. */
  record Response(String statusLine, List<String> headerLines, byte[] body, boolean complete) {
    int status() {
      return Integer.parseInt(statusLine.split(" ")[1]);
    }

    String header(String name) {
      for (String line : headerLines) {
        int colon = line.indexOf(':');
        if (line.substring(0, colon).equalsIgnoreCase(name)) {
          return line.substring(colon + 1).trim();
        }
      }
      return null;
    }

    /** The header lines without the given ones (lower-case names). */
    List<String> headersWithout(String... names) {
      List<String> kept = new ArrayList<>();
      outer:
      for (String line : headerLines) {
        String name = line.substring(0, line.indexOf(':')).toLowerCase(Locale.ROOT);
        for (String n : names) {
          if (n.equals(name)) {
            continue outer;
          }
        }
        kept.add(line);
      }
      return kept;
    }

    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  RawHttp(int port) {
    try {
      socket = new Socket("127.0.0.1", port);
      socket.setSoTimeout(30_000);
      socket.setTcpNoDelay(true);
      in = socket.getInputStream();
      out = socket.getOutputStream();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A POST with a JSON body and extra header lines ({@code Name: value}). */
  static String post(String path, String json, String... headers) {
    StringBuilder b = new StringBuilder();
    b.append("POST ").append(path).append(" HTTP/1.1\r\n");
    b.append("Host: client.example\r\n");
    b.append("Content-Type: application/json\r\n");
    for (String h : headers) {
      b.append(h).append("\r\n");
    }
    b.append("Content-Length: ").append(json.getBytes(StandardCharsets.UTF_8).length);
    b.append("\r\n\r\n").append(json);
    return b.toString();
  }

  /** A GET with extra header lines. */
  static String get(String path, String... headers) {
    StringBuilder b = new StringBuilder();
    b.append("GET ").append(path).append(" HTTP/1.1\r\nHost: client.example\r\n");
    for (String h : headers) {
      b.append(h).append("\r\n");
    }
    return b.append("\r\n").toString();
  }

  /** Sends one request on a new connection and reads its response. */
  static Response exchange(int port, String request) {
    try (RawHttp http = new RawHttp(port)) {
      return http.send(request);
    }
  }

  /** Sends a request on this connection and reads the whole response. */
  Response send(String request) {
    write(request);
    return read(request.startsWith("HEAD "));
  }

  /** Writes raw request bytes. */
  void write(String request) {
    try {
      out.write(request.getBytes(StandardCharsets.UTF_8));
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads the status line and headers only. */
  Response readHead() {
    try {
      String status = line();
      List<String> headers = new ArrayList<>();
      String l;
      while (!(l = line()).isEmpty()) {
        headers.add(l);
      }
      return new Response(status, headers, new byte[0], false);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads exactly {@code n} bytes of a body that is not chunked. */
  byte[] readBytes(int n) {
    try {
      return in.readNBytes(n);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads until the peer closes the connection (a body that ends with the close). */
  byte[] readToEnd() {
    try {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The connection's input, e.g. to see it closed ({@code read() == -1}). */
  InputStream input() {
    return in;
  }

  /** Reads the next de-chunked piece of a chunked body (null at its end). */
  byte[] readChunk() {
    try {
      int size = Integer.parseInt(line().split(";")[0].trim(), 16);
      if (size == 0) {
        while (!line().isEmpty()) {
          // trailers
        }
        return null;
      }
      byte[] data = in.readNBytes(size);
      line();
      return data;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads a whole response; a body cut short by the peer gives {@code complete == false}. */
  Response read(boolean head) {
    Response h = readHead();
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    boolean complete = true;
    try {
      String length = h.header("Content-Length");
      String te = h.header("Transfer-Encoding");
      int status = h.status();
      if (head || status == 204 || status == 304) {
        // no body
      } else if (te != null && te.toLowerCase(Locale.ROOT).contains("chunked")) {
        try {
          byte[] chunk;
          while ((chunk = readChunk()) != null) {
            body.write(chunk);
          }
        } catch (UncheckedIOException | NumberFormatException e) {
          complete = false;
        }
      } else if (length != null) {
        byte[] data = in.readNBytes(Integer.parseInt(length));
        body.write(data);
        complete = data.length == Integer.parseInt(length);
      } else {
        body.write(in.readAllBytes());
      }
    } catch (IOException e) {
      complete = false;
    }
    return new Response(h.statusLine(), h.headerLines(), body.toByteArray(), complete);
  }

  private String line() throws IOException {
    return line(in);
  }

  /** One line of an HTTP head from {@code in}, without its CRLF or LF (ISO-8859-1). */
  static String line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) != -1) {
      if (b == '\n') {
        byte[] bytes = line.toByteArray();
        int n =
            bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        return new String(bytes, 0, n, StandardCharsets.ISO_8859_1);
      }
      line.write(b);
    }
    throw new IOException("connection closed in the middle of a line");
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // closing
    }
  }
}

package io.tpotstream.producer.http;

import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.net.TCPSSLOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * PEM files for one side of a TLS connection: {@code caFile}, the certificate authorities to trust
 * instead of the JVM's (a private CA's bundle), and {@code certFile} with its {@code keyFile}, the
 * certificate this side shows (a server's, or a client's for mutual TLS). Any may be null.
 */
public record TlsFiles(Path caFile, Path certFile, Path keyFile) {
  public static final TlsFiles NONE = new TlsFiles(null, null, null);

  /** The environment variable Python's ssl, curl and many clients read for a CA bundle. */
  public static final String SSL_CERT_FILE = "SSL_CERT_FILE";

  public TlsFiles {
    if ((certFile == null) != (keyFile == null)) {
      throw new IllegalArgumentException(
          "a certificate needs its private key: give both (PEM files), or neither");
    }
    for (Path file : new Path[] {caFile, certFile, keyFile}) {
      if (file != null && !Files.isReadable(file)) {
        throw new IllegalArgumentException(
            file + ": no such readable file (a PEM file was expected)");
      }
    }
  }

  /** {@code caFile} as given, else {@code SSL_CERT_FILE} from {@code env}, else none. */
  public static Path caOrEnvironment(Path caFile, Map<String, String> env) {
    if (caFile != null) {
      return caFile;
    }
    String fromEnv = env.get(SSL_CERT_FILE);
    return fromEnv == null || fromEnv.isBlank() ? null : Path.of(fromEnv.trim());
  }

  /** True when a certificate (and key) is given. */
  public boolean hasCertificate() {
    return certFile != null;
  }

  /** Puts these files into {@code options}: the CAs to trust, the certificate to show. */
  public <T extends TCPSSLOptions> T applyTo(T options) {
    if (caFile != null) {
      options.setTrustOptions(new PemTrustOptions().addCertPath(caFile.toString()));
    }
    if (certFile != null) {
      options.setKeyCertOptions(
          new PemKeyCertOptions().setCertPath(certFile.toString()).setKeyPath(keyFile.toString()));
    }
    return options;
  }
}

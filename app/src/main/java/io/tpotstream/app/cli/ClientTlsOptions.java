package io.tpotstream.app.cli;

import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * How the producer checks the endpoint's certificate, as flags over the config keys {@code
 * ca_file}, {@code insecure}, {@code client_cert} and {@code client_key} (the flags win over the
 * file, the file over {@code SSL_CERT_FILE}). Files are taken from the working directory.
 */
final class ClientTlsOptions {
  @Option(
      names = "--ca-file",
      paramLabel = "PEM",
      description =
          "Config key ca_file: trust these certificate authorities (a PEM bundle, e.g. a private"
              + " CA's) instead of the JVM's (default: the file named by SSL_CERT_FILE, when set).")
  Path caFile;

  @Option(
      names = "--client-cert",
      paramLabel = "PEM",
      description =
          "Config key client_cert: show this client certificate (PEM; with --client-key) to an"
              + " endpoint that requires one (mutual TLS).")
  Path clientCert;

  @Option(
      names = "--client-key",
      paramLabel = "PEM",
      description = "Config key client_key: the private key of --client-cert (PEM).")
  Path clientKey;

  @Option(
      names = "--insecure",
      description =
          "Config key insecure: do not check the endpoint's certificate at all (warned about on"
              + " every run); prefer --ca-file.")
  boolean insecure;

  /** Puts the flags given into {@code keys}, by config key. */
  void putInto(Map<String, String> keys) {
    put(keys, "ca_file", caFile);
    put(keys, "client_cert", clientCert);
    put(keys, "client_key", clientKey);
    if (insecure) {
      keys.put("insecure", "true");
    }
  }

  private static void put(Map<String, String> keys, String key, Path file) {
    if (file != null) {
      keys.put(key, file.toAbsolutePath().toString());
    }
  }
}

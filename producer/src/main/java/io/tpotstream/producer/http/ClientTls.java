package io.tpotstream.producer.http;

import io.vertx.core.http.HttpClientOptions;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;

/**
 * How a client of ours (the producer, the proxy toward its upstream) checks the server it calls:
 * the CA bundle to trust instead of the JVM's and where it came from, the client certificate for
 * mutual TLS, or no check at all ({@code insecure}). The one home of these options: the producer's
 * config keys and the proxy's flags both end here, and the TLS error messages read it to say what
 * to check.
 *
 * @param files the CA bundle (null: the JVM's trust store) and the client certificate and key
 * @param caSource where the CA bundle was named (e.g. {@code "config key 'ca_file'"}), or null
 * @param insecure no certificate or host check at all (a warning is due on every run)
 */
public record ClientTls(TlsFiles files, String caSource, boolean insecure) {
  /** The JVM's trust store, no client certificate, verification on. */
  public static final ClientTls DEFAULT = new ClientTls(TlsFiles.NONE, null, false);

  /** The TLS alerts a server sends about the client's certificate (RFC 8446, 6.2). */
  private static final Pattern REFUSED_CLIENT =
      Pattern.compile(
          "certificate_required|bad_certificate|unsupported_certificate|certificate_revoked"
              + "|certificate_expired|certificate_unknown|unknown_ca|access_denied");

  public ClientTls {
    files = files == null ? TlsFiles.NONE : files;
  }

  /**
   * The options as given: {@code caFile} (named {@code caName}, null when not given) beats {@code
   * SSL_CERT_FILE} from {@code env}; a client certificate needs its key; a file that cannot be read
   * is refused here, before any request.
   *
   * @throws IllegalArgumentException naming the option and the file
   */
  public static ClientTls of(
      Path caFile,
      String caName,
      Path certFile,
      Path keyFile,
      boolean insecure,
      Map<String, String> env) {
    Path ca = TlsFiles.caOrEnvironment(caFile, env);
    String source =
        ca == null
            ? null
            : caFile != null ? caName : "environment variable " + TlsFiles.SSL_CERT_FILE;
    try {
      return new ClientTls(new TlsFiles(ca, certFile, keyFile), source, insecure);
    } catch (IllegalArgumentException e) {
      boolean aboutCa = ca != null && e.getMessage().startsWith(ca + ":");
      throw new IllegalArgumentException((aboutCa ? source + ": " : "") + e.getMessage(), e);
    }
  }

  /** Puts these settings into {@code options}: trust, client certificate, or no checks at all. */
  public HttpClientOptions applyTo(HttpClientOptions options) {
    files.applyTo(options);
    if (insecure) {
      options.setTrustAll(true).setVerifyHost(false);
    }
    return options;
  }

  /**
   * Why the server's certificate of {@code host} may have been refused and what to check; {@code
   * caOptions} names the options that give a CA bundle (e.g. {@code "ca_file (--ca-file) or
   * SSL_CERT_FILE"}).
   */
  public String refusedServerAdvice(String host, String caOptions) {
    if (files.caFile() == null) {
      return "a certificate not signed by a CA the JVM trusts, or not issued for "
          + host
          + "; check the host, and for a private CA give its PEM bundle with "
          + caOptions;
    }
    return "a certificate not signed by a CA in "
        + files.caFile()
        + " (from "
        + caSource
        + "), or not issued for "
        + host
        + "; check the host and that this bundle holds the CA that signed the server's certificate";
  }

  /**
   * True when {@code cause} is the server's TLS alert about our certificate: it asked for one and
   * got none, or refused the one given (mutual TLS). A refused server certificate is ours to raise,
   * never an alert received.
   */
  public static boolean clientCertificateRefused(Throwable cause) {
    for (Throwable t = cause; t != null && t.getCause() != t; t = t.getCause()) {
      String m = t.getMessage();
      if (t instanceof SSLException
          && m != null
          && m.contains("Received fatal alert: ")
          && REFUSED_CLIENT.matcher(m).find()) {
        return true;
      }
    }
    return false;
  }

  /**
   * What to check when the server refused our client certificate or asked for one; {@code
   * certOptions} names the options that give one.
   */
  public String refusedClientAdvice(String certOptions) {
    if (!files.hasCertificate()) {
      return "the server asks for a client certificate (mutual TLS) and none was given: give one"
          + " and its key (PEM) with "
          + certOptions;
    }
    return "the server refused the client certificate "
        + files.certFile()
        + ": check that it is signed by a CA the server trusts and has not expired";
  }

  /**
   * The warning due on every run that calls {@code url} over TLS without checking certificates, or
   * null when they are checked (or {@code url} is plain http).
   */
  public String insecureWarning(String url) {
    if (!insecure || !url.regionMatches(true, 0, "https:", 0, 6)) {
      return null;
    }
    return "TLS VERIFICATION IS OFF for "
        + url
        + " (insecure): any server, or anyone on the way, can answer in its place; trust its CA"
        + " instead (a PEM bundle)";
  }
}

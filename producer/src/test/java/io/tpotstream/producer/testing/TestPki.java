package io.tpotstream.producer.testing;

import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import io.tpotstream.producer.http.TlsFiles;
import java.nio.file.Path;

/**
 * A private certificate authority made in the test, and the certificates it signs, as PEM files:
 * the one source of certificates for the tests (servers, clients, the proxy's both sides). Each
 * call makes a new CA, which no other CA's certificates are signed by.
 *
 * @param caFile the CA's certificate (the bundle a client or server is told to trust)
 * @param server a certificate for {@code localhost} and {@code 127.0.0.1} with its key
 * @param client a client certificate (for mutual TLS) with its key
 */
public record TestPki(Path caFile, TlsFiles server, TlsFiles client) {

  /** A new CA with a server and a client certificate signed by it. */
  public static TestPki create() {
    try {
      X509Bundle ca =
          new CertificateBuilder()
              .subject("CN=tpot test CA")
              .setIsCertificateAuthority(true)
              .ecp256()
              .buildSelfSigned();
      X509Bundle server =
          new CertificateBuilder()
              .subject("CN=localhost")
              .addSanDnsName("localhost")
              .addSanIpAddress("127.0.0.1")
              .addExtendedKeyUsageServerAuth()
              .ecp256()
              .buildIssuedBy(ca);
      X509Bundle client =
          new CertificateBuilder()
              .subject("CN=tpot test client")
              .addExtendedKeyUsageClientAuth()
              .ecp256()
              .buildIssuedBy(ca);
      return new TestPki(ca.toTempRootCertPem().toPath(), files(server), files(client));
    } catch (Exception e) {
      throw new IllegalStateException("cannot make the test certificates", e);
    }
  }

  /** {@code bundle}'s certificate chain and private key as PEM files. */
  private static TlsFiles files(X509Bundle bundle) throws Exception {
    return new TlsFiles(
        null, bundle.toTempCertChainPem().toPath(), bundle.toTempPrivateKeyPem().toPath());
  }

  /** The server's certificate and key, asking clients for certificates signed by this CA. */
  public TlsFiles serverAskingForClients() {
    return new TlsFiles(caFile, server.certFile(), server.keyFile());
  }
}

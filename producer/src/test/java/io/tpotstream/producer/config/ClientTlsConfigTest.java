package io.tpotstream.producer.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.producer.http.ClientTls;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS config keys: a CA bundle from the flag (an override), else the file's {@code ca_file}
 * (relative to the file), else {@code SSL_CERT_FILE}; a client certificate needs its key; {@code
 * insecure} is warned about once at load, for an https endpoint.
 */
class ClientTlsConfigTest {
  @TempDir Path dir;
  final List<String> warnings = new ArrayList<>();

  private ClientTls tls(String json, Map<String, String> overrides, Map<String, String> env)
      throws IOException {
    Path file = dir.resolve("config.json");
    Files.writeString(file, json);
    return ConfigLoader.load(file, overrides, env, warnings::add).tls();
  }

  private Path pem(String name) throws IOException {
    return Files.writeString(dir.resolve(name), "-----BEGIN CERTIFICATE-----\n");
  }

  private static final String WITH_CA =
      "{\"base_url\": \"https://llm.internal\", \"models\": [\"m\"], \"ca_file\": \"file.pem\"}";
  private static final String WITHOUT_CA =
      "{\"base_url\": \"https://llm.internal\", \"models\": [\"m\"]}";

  @Test
  void theFlagBeatsTheFileWhichBeatsSslCertFile() throws IOException {
    Path fromFile = pem("file.pem");
    Path fromFlag = pem("flag.pem");
    Path fromEnv = pem("env.pem");
    Map<String, String> env = Map.of("SSL_CERT_FILE", fromEnv.toString());

    ClientTls flag = tls(WITH_CA, Map.of("ca_file", fromFlag.toString()), env);
    assertEquals(fromFlag, flag.files().caFile());
    assertEquals("config key 'ca_file'", flag.caSource());

    ClientTls file = tls(WITH_CA, Map.of(), env);
    assertEquals(fromFile, file.files().caFile(), "relative to the config file's folder");

    ClientTls environment = tls(WITHOUT_CA, Map.of(), env);
    assertEquals(fromEnv, environment.files().caFile());
    assertEquals("environment variable SSL_CERT_FILE", environment.caSource());

    ClientTls none = tls(WITHOUT_CA, Map.of(), Map.of());
    assertNull(none.files().caFile());
    assertFalse(none.insecure());
    assertEquals(List.of(), warnings);
  }

  @Test
  void anUnreadableBundleIsRefusedNamingWhereItWasNamed() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> tls(WITHOUT_CA, Map.of(), Map.of("SSL_CERT_FILE", "/no/such/ca.pem")));
    assertEquals(
        "environment variable SSL_CERT_FILE: /no/such/ca.pem: no such readable file (a PEM file"
            + " was expected)",
        e.getMessage());
  }

  @Test
  void aClientCertificateWithoutItsKeyIsRefused() throws IOException {
    pem("client.pem");
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> tls(WITHOUT_CA, Map.of("client_cert", "client.pem"), Map.of()));
    assertEquals(
        "config keys 'client_cert' and 'client_key': a certificate needs its private key: give"
            + " both (PEM files), or neither",
        e.getMessage());
  }

  @Test
  void insecureIsWarnedAboutForHttpsOnly() throws IOException {
    assertTrue(tls(WITHOUT_CA, Map.of("insecure", "true"), Map.of()).insecure());
    assertEquals(
        List.of(
            "TLS VERIFICATION IS OFF for https://llm.internal/v1 (insecure): any server, or"
                + " anyone on the way, can answer in its place; trust its CA instead (a PEM"
                + " bundle)"),
        warnings);
    warnings.clear();
    tls(
        "{\"base_url\": \"http://127.0.0.1:8000\", \"models\": [\"m\"], \"insecure\": true}",
        Map.of(),
        Map.of());
    assertEquals(List.of(), warnings, "no TLS, nothing to warn about");
  }
}

package io.tpotstream.proxy.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class UpstreamTest {
  @Test
  void aRefusedUpstreamIsShownWithoutItsCredentials() {
    IllegalArgumentException query =
        assertThrows(
            IllegalArgumentException.class,
            () -> Upstream.parse("http://user-S3CRET:pw-S3CRET@h:1/v1?key=q-S3CRET"));
    assertEquals(
        "--upstream 'http://***@h:1/v1?key=***' has a query or fragment: give only scheme, host,"
            + " port and path prefix; the application's own query strings are forwarded as they"
            + " are",
        query.getMessage());
    IllegalArgumentException scheme =
        assertThrows(
            IllegalArgumentException.class, () -> Upstream.parse("ftp://u:pw-S3CRET@h/v1"));
    assertEquals(
        "--upstream 'ftp://***@h/v1' must start with http:// or https:// (e.g."
            + " https://api.openai.com or http://127.0.0.1:8000)",
        scheme.getMessage());
  }

  @Test
  void theUpstreamsUrlIsItsSchemeAuthorityAndPrefix() {
    Upstream upstream = Upstream.parse("https://gateway.example:8443/openai/");
    assertEquals("https://gateway.example:8443/openai", upstream.url());
    assertEquals("/openai/v1/chat/completions", upstream.target("/v1/chat/completions"));
  }
}

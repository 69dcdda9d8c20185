package io.tpotstream.common.secret;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SecretsTest {
  private static final String ALPHABET =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~!$'()*+,;=:@/?% ";

  @Test
  void userInfoAndSecretQueryValuesAreMaskedAndApiVersionShown() {
    String url = "http://u:hunter2-PW@host/v1?subscription-key=S3CRET-Q&api-version=2024-10-21";
    Secrets secrets = Secrets.builder().url(url).build();
    assertEquals(
        "http://***@host/v1?subscription-key=***&api-version=2024-10-21", secrets.url(url));
    assertEquals(
        "HTTP 401 from POST http://***@host/v1/chat/completions?subscription-key=***: check",
        secrets.redact(
            "HTTP 401 from POST http://u:hunter2-PW@host/v1/chat/completions"
                + "?subscription-key=S3CRET-Q: check"));
  }

  @Test
  void aUrlWithoutSecretsIsShownAsGiven() {
    for (String url :
        List.of(
            "https://api.openai.com/v1",
            "http://127.0.0.1:8000/v1/chat/completions",
            "https://r.openai.azure.com/openai/deployments/d?api-version=2024-10-21",
            "http://[::1]:9/v1?alt=sse",
            "https://host/v1?",
            "https://host/path@with-at/v1")) {
      assertEquals(url, Secrets.NONE.url(url));
    }
  }

  @Test
  void bareQueryTokensFragmentsAndEmptyValuesAreHandled() {
    assertEquals("https://h/v1?***", Secrets.maskUrl("https://h/v1?S3CRET"));
    assertEquals("https://h/v1?k=&a=***", Secrets.maskUrl("https://h/v1?k=&a=b"));
    assertEquals("https://h/v1#***", Secrets.maskUrl("https://h/v1#tok"));
    assertEquals("https://h/v1?a=***#***", Secrets.maskUrl("https://h/v1?a=b#tok"));
    assertEquals("https://h/v1?API-Version=1", Secrets.maskUrl("https://h/v1?API-Version=1"));
    assertEquals("https://***@h", Secrets.maskUrl("https://user@h"));
  }

  @Test
  void urlsInFreeTextKeepTheSentenceAroundThem() {
    assertEquals(
        "(URL tried: https://h/v1?key=***). Check it",
        Secrets.NONE.redact("(URL tried: https://h/v1?key=abc). Check it"));
    assertEquals(
        "redirected to https://login/x?token=***; set base_url",
        Secrets.NONE.redact("redirected to https://login/x?token=ZZZ; set base_url"));
  }

  @Test
  void secretsThatAreSubstringsOfEachOtherAreBothMaskedWhole() {
    Secrets secrets = Secrets.builder().add("abcd1234").add("abcd").add("1234wxyz").build();
    assertEquals("x *** y", secrets.redact("x abcd1234 y"));
    assertEquals("x *** y", secrets.redact("x abcd y"));
    assertEquals("x *** y", secrets.redact("x abcd1234wxyz y"));
    assertEquals("x ***5 y", secrets.redact("x abcd12345 y"));
  }

  @Test
  void aPercentEncodedQueryValueIsMaskedInBothForms() {
    String url = "https://h/v1?key=p%40ss%2Fw0rd%20x";
    Secrets secrets = Secrets.builder().url(url).build();
    assertEquals("echo: *** and ***", secrets.redact("echo: p@ss/w0rd x and p%40ss%2Fw0rd%20x"));
    assertEquals("lower hex: ***", secrets.redact("lower hex: p%40ss%2fw0rd%20x"));
    assertEquals("form: ***", secrets.redact("form: p%40ss%2Fw0rd+x"));
  }

  @Test
  void headersAreSecretUnlessHarmless() {
    Secrets secrets =
        Secrets.builder()
            .header("api-key", "HEADER-KEY-1")
            .header("Authorization", "Bearer TOKEN-XYZ")
            .header("Content-Type", "application/json")
            .header("anthropic-version", "2023-06-01")
            .build();
    assertEquals("api-key: ***", secrets.header("api-key", "HEADER-KEY-1"));
    assertEquals(
        "anthropic-version: 2023-06-01", secrets.header("anthropic-version", "2023-06-01"));
    assertEquals("got *** and ***", secrets.redact("got HEADER-KEY-1 and TOKEN-XYZ"));
    assertEquals("application/json 2023-06-01", secrets.redact("application/json 2023-06-01"));
  }

  @Test
  void basicCredentialsOfUrlUserInfoAreMasked() {
    Secrets secrets = Secrets.builder().url("http://alice:s3cr%3At@h/").build();
    String basic =
        Base64.getEncoder().encodeToString("alice:s3cr:t".getBytes(StandardCharsets.UTF_8));
    assertEquals("Authorization: Basic ***", secrets.redact("Authorization: Basic " + basic));
    assertEquals("*** ***", secrets.redact("alice s3cr:t"));
  }

  @Test
  void shortValuesAreMaskedInUrlsOnly() {
    Secrets secrets = Secrets.builder().url("http://u:pw@host/v1").build();
    assertEquals("http://***@host/v1 user u", secrets.redact("http://u:pw@host/v1 user u"));
  }

  /** Random secrets in random URL shapes: no secret, in any form, survives redaction. */
  @Test
  void generatedUrlsAndTextsNeverShowASecret() {
    Random random = new Random(49);
    for (int round = 0; round < 2_000; round++) {
      String user = word(random, 4 + random.nextInt(12));
      String password = word(random, 4 + random.nextInt(20));
      String queryValue = word(random, 4 + random.nextInt(30));
      // sometimes one secret inside another
      String header = random.nextBoolean() ? queryValue + word(random, 3) : word(random, 8);
      String key =
          random.nextInt(4) == 0 && password.length() > Secrets.MIN_CHARS
              ? password.substring(1)
              : "sk-" + word(random, 20);
      String url =
          (random.nextBoolean() ? "https" : "http")
              + "://"
              + (random.nextBoolean() ? enc(user) + ":" + enc(password) + "@" : "")
              + (random.nextBoolean() ? "host.example" : "127.0.0.1:" + (1 + random.nextInt(65535)))
              + (random.nextBoolean() ? "/v1" : "/openai/deployments/d")
              + "?"
              + (random.nextBoolean() ? "api-version=2024-10-21&" : "")
              + (random.nextBoolean() ? "subscription-key" : "key")
              + "="
              + enc(queryValue)
              + (random.nextBoolean() ? "&alt=sse" : "");
      Secrets secrets =
          Secrets.builder().url(url).add(key).header("X-Custom-" + round, header).build();
      List<String> planted = new ArrayList<>(List.of(queryValue, header, key));
      if (url.contains("@")) {
        planted.add(user);
        planted.add(password);
      }
      String printed = secrets.url(url);
      String text =
          "HTTP 401 from POST "
              + url.replace("/v1?", "/v1/chat/completions?")
              + " (server said: bad key "
              + key
              + ", header "
              + header
              + ", value "
              + queryValue
              + " encoded "
              + enc(queryValue)
              + " lower "
              + enc(queryValue).toLowerCase(Locale.ROOT)
              + (url.contains("@") ? ", user " + user + " password " + password : "")
              + ")";
      String redacted = secrets.redact(text);
      for (String secret : planted) {
        for (String form : List.of(secret, enc(secret))) {
          assertFalse(printed.contains(form), () -> form + " in " + printed + " from " + url);
          assertFalse(redacted.contains(form), () -> form + " in " + redacted + " from " + text);
        }
      }
      assertTrue(printed.startsWith(url.substring(0, url.indexOf("://") + 3)), printed);
      assertEquals(redacted, secrets.redact(redacted), "redaction is idempotent");
    }
  }

  private static String word(Random random, int length) {
    StringBuilder b = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      b.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
    }
    String w = b.toString().strip();
    return w.length() < Secrets.MIN_CHARS ? w + "Zq7x" : w;
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}

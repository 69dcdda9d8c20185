package io.tpotstream.common.secret;

import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one place that hides secrets: every URL, header, message, event text, log line and record
 * that may quote a configured value passes through {@link #redact} (or {@link #url}) before it
 * leaves the process.
 *
 * <p>Two rules, applied together. Structural: in every URL found in a text, the user-info and the
 * value of every query parameter not on {@link #HARMLESS_QUERY} show as {@code ***}. Known values:
 * each secret the config holds (API key, URL user and password, query values, header values not on
 * {@link #HARMLESS_HEADERS}, proxy credentials) is masked wherever it appears, as given, percent-
 * decoded, percent-encoded, and as an HTTP Basic credential; overlapping matches become one mask.
 * Matching ignores case (a percent escape may be {@code %2f} or {@code %2F}); a value shorter than
 * {@link #MIN_CHARS} is masked only structurally, as masking it everywhere would garble every text.
 */
public final class Secrets {
  public static final String MASK = "***";

  /** A secret this short is masked in URLs but not searched for in free text. */
  public static final int MIN_CHARS = 4;

  /**
   * Query parameters shown in URLs: they select a protocol, never authorize ({@code api-version}:
   * Azure OpenAI and API Management; {@code alt}: Gemini's {@code alt=sse}).
   */
  public static final Set<String> HARMLESS_QUERY = Set.of("api-version", "alt");

  /**
   * Headers (lower case) whose configured values are shown: they choose a format or a protocol
   * version, never authorize. Any other configured header is secret.
   */
  public static final Set<String> HARMLESS_HEADERS =
      Set.of(
          "accept",
          "accept-encoding",
          "accept-language",
          "cache-control",
          "content-type",
          "user-agent",
          "anthropic-version",
          "anthropic-beta",
          "openai-beta");

  /** Nothing known: URLs are still masked structurally. */
  public static final Secrets NONE = new Secrets(List.of());

  /** A URL in free text: a scheme, {@code ://}, and what follows up to a space or a quote. */
  private static final Pattern URL_IN_TEXT =
      Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*://[^\\s\"'<>`]*");

  /** Punctuation that ends a sentence rather than a URL in free text. */
  private static final String TRAILING = ").,;:!]}";

  /** Every form searched for, longest first. */
  private final List<String> forms;

  private Secrets(List<String> forms) {
    this.forms = forms;
  }

  /** Collects the secrets of one config, then {@link #build()}s them. */
  public static Builder builder() {
    return new Builder();
  }

  /** True when a header of this name may be shown with its value. */
  public static boolean harmlessHeader(String name) {
    return HARMLESS_HEADERS.contains(name.trim().toLowerCase(Locale.ROOT));
  }

  /** True when a query parameter of this name may be shown with its value. */
  public static boolean harmlessQuery(String name) {
    return HARMLESS_QUERY.contains(decode(name).trim().toLowerCase(Locale.ROOT));
  }

  /** {@code url} printable: user-info and secret query values masked, then every known secret. */
  public String url(URI url) {
    return url == null ? "null" : url(url.toString());
  }

  /** As {@link #url(URI)}, for a URL as text (it need not parse). */
  public String url(String url) {
    return url == null ? "null" : known(maskUrl(url));
  }

  /** {@code header: value} printable: the value masked unless the header is harmless. */
  public String header(String name, String value) {
    return name + ": " + (harmlessHeader(name) ? redact(value) : MASK);
  }

  /** {@code text} with every URL in it masked as {@link #url} masks it, and every known secret. */
  public String redact(String text) {
    if (text == null || text.isEmpty()) {
      return text;
    }
    return known(maskUrls(text));
  }

  /** The user-info and secret query values of every URL in {@code text} masked; nothing else. */
  public static String maskUrls(String text) {
    if (text == null || text.indexOf("://") < 0) {
      return text;
    }
    Matcher m = URL_IN_TEXT.matcher(text);
    StringBuilder out = new StringBuilder(text.length());
    int last = 0;
    while (m.find()) {
      int end = m.end();
      while (end > m.start() && TRAILING.indexOf(text.charAt(end - 1)) >= 0) {
        end--; // "(URL tried: https://h/v1?k=x)." ends before ")."
      }
      out.append(text, last, m.start()).append(maskUrl(text.substring(m.start(), end)));
      last = end;
    }
    return out.append(text, last, text.length()).toString();
  }

  /**
   * One URL with its user-info replaced by {@code ***}, each query value whose name is not on
   * {@link #HARMLESS_QUERY} (and each query part without a value) by {@code ***}, and a fragment by
   * {@code ***}; scheme, host, port and path as given. Works on text that does not parse as a URI.
   */
  public static String maskUrl(String url) {
    int scheme = url.indexOf("://");
    int authorityStart = scheme < 0 ? 0 : scheme + 3;
    int authorityEnd = firstOf(url, authorityStart, "/?#");
    StringBuilder out = new StringBuilder(url.length());
    out.append(url, 0, authorityStart);
    int at = scheme < 0 ? -1 : url.lastIndexOf('@', authorityEnd - 1);
    if (at >= authorityStart) {
      out.append(MASK).append(url, at, authorityEnd);
    } else {
      out.append(url, authorityStart, authorityEnd);
    }
    int queryStart = url.indexOf('?', authorityEnd);
    int fragment = url.indexOf('#', authorityEnd);
    if (queryStart >= 0 && fragment >= 0 && fragment < queryStart) {
      queryStart = -1;
    }
    int pathEnd = queryStart >= 0 ? queryStart : fragment >= 0 ? fragment : url.length();
    out.append(url, authorityEnd, pathEnd);
    if (queryStart >= 0) {
      int queryEnd = fragment >= 0 ? fragment : url.length();
      out.append('?').append(maskQuery(url.substring(queryStart + 1, queryEnd)));
    }
    if (fragment >= 0) {
      out.append(fragment + 1 < url.length() ? "#" + MASK : "#");
    }
    return out.toString();
  }

  private static String maskQuery(String query) {
    StringBuilder out = new StringBuilder(query.length());
    int start = 0;
    while (start <= query.length()) {
      int end = query.indexOf('&', start);
      end = end < 0 ? query.length() : end;
      String part = query.substring(start, end);
      int eq = part.indexOf('=');
      if (part.isEmpty()) {
        // "a=1&&b=2": nothing to hide
      } else if (eq < 0) {
        out.append(MASK); // a bare token may be a key
      } else if (harmlessQuery(part.substring(0, eq)) || eq == part.length() - 1) {
        out.append(part);
      } else {
        out.append(part, 0, eq + 1).append(MASK);
      }
      if (end < query.length()) {
        out.append('&');
      }
      start = end + 1;
    }
    return out.toString();
  }

  private static int firstOf(String text, int from, String chars) {
    for (int i = from; i < text.length(); i++) {
      if (chars.indexOf(text.charAt(i)) >= 0) {
        return i;
      }
    }
    return text.length();
  }

  /** Every known form masked; overlapping or adjacent matches become one {@code ***}. */
  private String known(String text) {
    if (forms.isEmpty() || text.isEmpty()) {
      return text;
    }
    boolean[] hidden = null;
    for (String form : forms) {
      for (int i = indexOf(text, form, 0); i >= 0; i = indexOf(text, form, i + 1)) {
        if (hidden == null) {
          hidden = new boolean[text.length()];
        }
        java.util.Arrays.fill(hidden, i, i + form.length(), true);
      }
    }
    if (hidden == null) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      if (!hidden[i]) {
        out.append(text.charAt(i));
      } else if (i == 0 || !hidden[i - 1]) {
        out.append(MASK);
      }
    }
    return out.toString();
  }

  private static int indexOf(String text, String form, int from) {
    char first = form.charAt(0);
    char upper = Character.toUpperCase(first);
    char lower = Character.toLowerCase(first);
    for (int i = from; i <= text.length() - form.length(); i++) {
      char c = text.charAt(i);
      if ((c == first || c == upper || c == lower)
          && text.regionMatches(true, i, form, 0, form.length())) {
        return i;
      }
    }
    return -1;
  }

  private static String decode(String text) {
    try {
      return URLDecoder.decode(text, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return text; // a stray '%': the text as given
    }
  }

  /** Gathers the secrets of a config; each added value is also searched for in its other forms. */
  public static final class Builder {
    private final Set<String> values = new LinkedHashSet<>();
    private final List<String[]> basicPairs = new ArrayList<>();

    private Builder() {}

    /** A secret value (an API key, a password); null or blank is ignored. */
    public Builder add(String value) {
      if (value != null && !value.isBlank()) {
        values.add(value.strip());
      }
      return this;
    }

    /** Every value of {@code secrets}. */
    public Builder addAll(Collection<String> secrets) {
      secrets.forEach(this::add);
      return this;
    }

    /**
     * A configured header: its value is secret unless the header is on {@link #HARMLESS_HEADERS};
     * for an auth scheme ({@code Bearer x}, {@code Basic x}) the credential alone is too.
     */
    public Builder header(String name, String value) {
      if (value == null || harmlessHeader(name)) {
        return this;
      }
      add(value);
      String v = value.strip();
      int space = v.indexOf(' ');
      if (space > 0 && v.substring(0, space).chars().allMatch(Character::isLetter)) {
        add(v.substring(space + 1));
      }
      return this;
    }

    /** A user name and password (a URL's or a proxy's), also as the Basic credential they make. */
    public Builder credentials(String user, String password) {
      add(user);
      add(password);
      if (user != null || password != null) {
        basicPairs.add(new String[] {user == null ? "" : user, password == null ? "" : password});
      }
      return this;
    }

    /**
     * The secrets of {@code url}: its user-info (user and password, percent-decoded) and each query
     * value whose name is not harmless (and each query part without a value).
     */
    public Builder url(String url) {
      if (url == null) {
        return this;
      }
      URI uri;
      try {
        uri = new URI(url.trim());
      } catch (java.net.URISyntaxException e) {
        return this; // not a URL: nothing will use it
      }
      if (uri.getRawUserInfo() != null) {
        String[] parts = uri.getRawUserInfo().split(":", 2);
        add(parts[0]);
        add(parts.length > 1 ? parts[1] : null);
        credentials(decode(parts[0]), parts.length > 1 ? decode(parts[1]) : null);
      }
      if (uri.getRawQuery() != null) {
        for (String part : uri.getRawQuery().split("&")) {
          int eq = part.indexOf('=');
          String value = eq < 0 ? part : part.substring(eq + 1);
          if (eq < 0 || !harmlessQuery(part.substring(0, eq))) {
            add(value);
            add(decode(value));
          }
        }
      }
      return this;
    }

    public Secrets build() {
      Set<String> all = new LinkedHashSet<>();
      for (String v : values) {
        forms(v, all);
      }
      for (String[] pair : basicPairs) {
        all.add(
            Base64.getEncoder()
                .encodeToString((pair[0] + ":" + pair[1]).getBytes(StandardCharsets.UTF_8)));
      }
      List<String> forms = new ArrayList<>();
      for (String f : all) {
        if (f.length() >= MIN_CHARS) {
          forms.add(f);
        }
      }
      forms.sort(Comparator.comparingInt(String::length).reversed());
      return new Secrets(List.copyOf(forms));
    }

    /** {@code v} as given, percent-decoded, percent-encoded (with {@code +} and {@code %20}). */
    private static void forms(String v, Set<String> out) {
      out.add(v);
      String decoded = decode(v);
      out.add(decoded);
      for (String s : List.of(v, decoded)) {
        String encoded = URLEncoder.encode(s, StandardCharsets.UTF_8);
        out.add(encoded);
        out.add(encoded.replace("+", "%20"));
      }
    }
  }
}

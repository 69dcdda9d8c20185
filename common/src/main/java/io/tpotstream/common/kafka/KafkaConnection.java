package io.tpotstream.common.kafka;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where tpot finds Kafka and how its clients connect: the bootstrap servers, where they came from,
 * and the client settings of the user's properties file (security, timeouts, tuning). Every Kafka
 * client of every command is built from one of these.
 *
 * <p>The bootstrap servers come from the first of (the one order of precedence, see docs/kafka.md):
 * {@code --bootstrap-server} (or {@code --bootstrap-servers}), {@code bootstrap.servers} in the
 * properties file, the {@code KAFKA_BOOTSTRAP_SERVERS} environment variable, and the command's
 * default ({@value #DEFAULT_BOOTSTRAP}; {@code run} and {@code demo} start an embedded broker
 * instead). What is named on the command line beats the environment.
 *
 * @param bootstrapServers the resolved bootstrap servers
 * @param bootstrapFrom where they came from, in words ("--bootstrap-server", "the default", ...)
 * @param configFile the properties file, or null
 * @param settings the file's client settings without {@code bootstrap.servers} (never printed)
 * @param timeout the bound on each start-up call to Kafka ({@code --kafka-timeout})
 */
public record KafkaConnection(
    String bootstrapServers,
    String bootstrapFrom,
    Path configFile,
    Map<String, String> settings,
    Duration timeout) {

  public static final String DEFAULT_BOOTSTRAP = "localhost:9092";
  public static final String ENV_BOOTSTRAP = "KAFKA_BOOTSTRAP_SERVERS";
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(15);
  public static final String FROM_FLAG = "--bootstrap-server";
  public static final String FROM_ENV = ENV_BOOTSTRAP;
  public static final String FROM_DEFAULT = "the default";

  private static final String BOOTSTRAP = "bootstrap.servers";
  private static final Pattern JAAS_USER = Pattern.compile("username\\s*=\\s*\"([^\"]*)\"");

  public KafkaConnection {
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    Objects.requireNonNull(bootstrapFrom, "bootstrapFrom");
    Map<String, String> copy = new TreeMap<>(settings == null ? Map.of() : settings);
    copy.remove(BOOTSTRAP);
    settings = Collections.unmodifiableMap(copy);
    timeout = timeout == null ? DEFAULT_TIMEOUT : timeout;
  }

  /**
   * The connection the flag, the file and the environment name, or empty when none names bootstrap
   * servers ({@code run} then starts an embedded broker; other commands use {@link
   * #resolveOrDefault}).
   *
   * @param flag {@code --bootstrap-server}, or null
   * @param file {@code --kafka-config}, or null (read here, with the one reader)
   * @param env the environment ({@code System.getenv()})
   * @throws KafkaAccessException when the file cannot be read
   */
  public static Optional<KafkaConnection> resolve(
      String flag, Path file, Map<String, String> env, Duration timeout) {
    Map<String, String> settings = file == null ? Map.of() : KafkaClientFile.read(file);
    String servers;
    String from;
    if (present(flag)) {
      servers = flag.trim();
      from = FROM_FLAG;
    } else if (present(settings.get(BOOTSTRAP))) {
      servers = settings.get(BOOTSTRAP).trim();
      from = BOOTSTRAP + " in " + file;
    } else if (present(env.get(ENV_BOOTSTRAP))) {
      servers = env.get(ENV_BOOTSTRAP).trim();
      from = FROM_ENV;
    } else {
      return Optional.empty();
    }
    return Optional.of(new KafkaConnection(servers, from, file, settings, timeout));
  }

  /** As {@link #resolve}, falling back to {@value #DEFAULT_BOOTSTRAP}. */
  public static KafkaConnection resolveOrDefault(
      String flag, Path file, Map<String, String> env, Duration timeout) {
    return resolve(flag, file, env, timeout)
        .orElseGet(
            () ->
                new KafkaConnection(
                    DEFAULT_BOOTSTRAP,
                    FROM_DEFAULT,
                    file,
                    file == null ? Map.of() : KafkaClientFile.read(file),
                    timeout));
  }

  /** A plain connection without a properties file (embedded brokers, tests, benchmarks). */
  public static KafkaConnection of(String bootstrapServers) {
    return of(bootstrapServers, Map.of());
  }

  /**
   * A connection from what a component was configured with: its bootstrap servers and client
   * settings ({@code bootstrap.servers} among them is ignored: the resolved one wins).
   */
  public static KafkaConnection of(String bootstrapServers, Map<?, ?> settings) {
    Map<String, String> strings = new TreeMap<>();
    settings.forEach((k, v) -> strings.put(String.valueOf(k), String.valueOf(v)));
    return new KafkaConnection(bootstrapServers, "the caller", null, strings, DEFAULT_TIMEOUT);
  }

  /** The same settings against other bootstrap servers (e.g. the embedded broker of a run). */
  public KafkaConnection withBootstrapServers(String servers, String from) {
    return new KafkaConnection(servers, from, configFile, settings, timeout);
  }

  public KafkaConnection withTimeout(Duration bound) {
    return new KafkaConnection(bootstrapServers, bootstrapFrom, configFile, settings, bound);
  }

  /** A new {@link Properties}: the file's settings plus the resolved {@code bootstrap.servers}. */
  public Properties clientProperties() {
    Properties p = new Properties();
    p.putAll(settings);
    p.put(BOOTSTRAP, bootstrapServers);
    return p;
  }

  /** The file's settings plus the resolved {@code bootstrap.servers}, sorted. */
  public Map<String, String> clientSettings() {
    Map<String, String> all = new TreeMap<>(settings);
    all.put(BOOTSTRAP, bootstrapServers);
    return Collections.unmodifiableMap(all);
  }

  /**
   * Admin client properties whose every call gives up after {@link #timeout()} (Kafka's default is
   * a minute, and a closed admin client otherwise waits for its calls).
   */
  public Properties adminProperties() {
    Properties p = clientProperties();
    String ms = Long.toString(timeout.toMillis());
    p.putIfAbsent("default.api.timeout.ms", ms);
    p.putIfAbsent("request.timeout.ms", ms);
    return p;
  }

  /** {@code security.protocol} of the settings, {@code PLAINTEXT} when not set. */
  public String securityProtocol() {
    return settings.getOrDefault("security.protocol", "PLAINTEXT").trim();
  }

  /** The SASL user name in {@code sasl.jaas.config} ({@code username="…"}), if any. */
  public Optional<String> user() {
    String jaas = settings.get("sasl.jaas.config");
    if (jaas == null) {
      return Optional.empty();
    }
    Matcher m = JAAS_USER.matcher(jaas);
    return m.find() ? Optional.of(m.group(1)) : Optional.empty();
  }

  /** The properties file as messages name it. */
  public String configFileName() {
    return configFile == null ? "the --kafka-config file" : configFile.toString();
  }

  /** "127.0.0.1:9092 (from --bootstrap-server)": never the settings' values. */
  public String describe() {
    return bootstrapServers + " (from " + bootstrapFrom + ")";
  }

  @Override
  public String toString() {
    return "KafkaConnection["
        + describe()
        + (configFile == null ? "" : ", settings from " + configFile)
        + ", settings "
        + settings.keySet()
        + "]";
  }

  private static boolean present(String value) {
    return value != null && !value.isBlank();
  }
}

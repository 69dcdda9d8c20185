package io.tpotstream.aggregator;

import static org.apache.kafka.common.acl.AclOperation.CREATE;
import static org.apache.kafka.common.acl.AclOperation.DELETE;
import static org.apache.kafka.common.acl.AclOperation.DESCRIBE;
import static org.apache.kafka.common.acl.AclOperation.READ;
import static org.apache.kafka.common.acl.AclOperation.WRITE;

import io.tpotstream.aggregator.stage2.PartitionsChangedException;
import io.tpotstream.aggregator.stage2.SettingsChangedException;
import io.tpotstream.aggregator.topology.AggregatorTopology;
import io.tpotstream.aggregator.topology.EndOffsetWatch;
import io.tpotstream.common.Durations;
import io.tpotstream.common.Topics;
import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.kafka.KafkaFailures;
import io.tpotstream.common.kafka.KafkaNeeds;
import io.tpotstream.common.kafka.KafkaTopics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running aggregator: a Kafka Streams application turning token events into window summaries.
 * {@link #start} prepares the topics and starts it; {@link #close} stops it; {@link #stopped}
 * completes when it stops, exceptionally with a one-line reason when it failed.
 */
public final class Aggregator implements AutoCloseable {
  /** Partitions of the input topic when the aggregator has to create it. */
  public static final int DEFAULT_INPUT_PARTITIONS = 3;

  private static final Logger LOG = LoggerFactory.getLogger(Aggregator.class);
  private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(15);
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

  private final AggregatorConfig config;
  private final KafkaStreams streams;
  private final EndOffsetWatch reads;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final CompletableFuture<Void> stopped = new CompletableFuture<>();

  /** How many stream-thread failures in {@link #RETRY_PERIOD} are retried before stopping. */
  static final int RETRIES = 3;

  static final Duration RETRY_PERIOD = Duration.ofMinutes(5);

  /** When recent stream threads failed (System.nanoTime). */
  private final List<Long> failures = new java.util.ArrayList<>();

  private Aggregator(AggregatorConfig config) {
    this.config = config;
    Properties props = AggregatorTopology.streamsProperties(config);
    this.reads =
        new EndOffsetWatch(
            Admin.create(connection(config).adminProperties()),
            config.inputTopic(),
            config.inputPartitions(),
            config.applicationId());
    this.streams = new KafkaStreams(AggregatorTopology.buildTopology(config, reads), props);
    streams.setUncaughtExceptionHandler(this::onThreadFailure);
    streams.setStateListener(
        (now, before) -> {
          if (now == KafkaStreams.State.RUNNING) {
            LOG.info("aggregator running: reading {}", config.inputTopic());
          }
          if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.NOT_RUNNING) {
            Throwable e = failure.get();
            if (e == null) {
              stopped.complete(null);
            } else {
              stopped.completeExceptionally(new AggregatorFailedException(reason(e), e));
            }
          }
        });
  }

  /**
   * Prepares the topics (reads the input's partition count, creates missing topics) and starts the
   * Streams application.
   *
   * @throws IllegalStateException with a one-line reason when Kafka cannot be reached
   */
  public static Aggregator start(AggregatorConfig config) {
    AggregatorConfig ready = prepareTopics(config);
    StringBuilder series = new StringBuilder("model");
    ready.stage().groupBy().forEach(label -> series.append('+').append(label));
    LOG.info(
        "aggregating {} ({} partitions) into {}: windows of {}, grace {}, series by {}, requests"
            + " abandoned after {} of silence, producers stale after {} of silence, times more than"
            + " {} ahead of the broker's (or watermarks as far behind) not trusted; application id {} ({});"
            + " records that are not token events go to {}",
        ready.inputTopic(),
        ready.inputPartitions(),
        ready.outputTopic(),
        Durations.format(ready.stage().windowSize()),
        Durations.format(ready.stage().grace()),
        series,
        Durations.format(ready.stage().requestTimeout()),
        Durations.format(ready.stage().producerTimeout()),
        Durations.format(ready.stage().maxClockSkew()),
        ready.applicationId(),
        ready.processingGuarantee(),
        ready.deadLetterTopic());
    Aggregator aggregator = new Aggregator(ready);
    aggregator.streams.start();
    return aggregator;
  }

  /** The two-stage topology; {@code config.inputPartitions()} must be set. */
  public static Topology buildTopology(AggregatorConfig config) {
    return AggregatorTopology.buildTopology(config);
  }

  /** The configuration it runs with (with the input's partition count). */
  public AggregatorConfig config() {
    return config;
  }

  /** Completes when the aggregator stops; exceptionally ({@link AggregatorFailedException}). */
  public CompletableFuture<Void> stopped() {
    return stopped;
  }

  /**
   * How many commits its stream threads have made so far (Kafka Streams' thread-level {@code
   * commit-total}; under exactly-once each is a transaction). Flat while no record arrives.
   */
  public long commits() {
    return streams.metrics().entrySet().stream()
        .filter(
            e ->
                e.getKey().name().equals("commit-total")
                    && e.getKey().group().equals("stream-thread-metrics"))
        .mapToLong(e -> ((Number) e.getValue().metricValue()).longValue())
        .sum();
  }

  /** True once every task is running (after start-up and rebalancing). */
  public boolean isRunning() {
    return streams.state() == KafkaStreams.State.RUNNING;
  }

  /**
   * Stops the application, committing what it processed (waits up to 30 s), and leaves its group,
   * so that another instance takes its partitions at once instead of after the session timeout.
   */
  @Override
  public void close() {
    if (!stopped.isDone()) {
      LOG.info("stopping the aggregator: committing what it has read");
    }
    streams.close(
        CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
            .withTimeout(CLOSE_TIMEOUT));
    reads.close();
    stopped.complete(null);
  }

  /**
   * A stream thread failed: a new one takes its tasks, and exactly-once aborts what the failed one
   * had not committed and reads it again. A failure that repeats ({@value #RETRIES} times in {@link
   * #RETRY_PERIOD}), or one no retry can fix (the input's partitions or the settings changed),
   * stops the aggregator with its reason.
   */
  private StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse onThreadFailure(
      Throwable e) {
    long now = System.nanoTime();
    synchronized (failures) {
      failures.removeIf(t -> now - t > RETRY_PERIOD.toNanos());
      failures.add(now);
      if (!isFatal(e) && failures.size() <= RETRIES) {
        LOG.warn(
            "a stream thread failed ({}); a new one reads again from the last commit ({} of {}"
                + " retries in {})",
            reason(e),
            failures.size(),
            RETRIES,
            Durations.format(RETRY_PERIOD));
        return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
      }
    }
    failure.compareAndSet(null, e);
    return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
  }

  private static boolean isFatal(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof PartitionsChangedException
          || t instanceof SettingsChangedException
          || t instanceof AuthorizationException) {
        return true;
      }
    }
    return false;
  }

  /** Why the aggregator stopped, in one line. */
  public static final class AggregatorFailedException extends RuntimeException {
    AggregatorFailedException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private static String reason(Throwable e) {
    Throwable root = e;
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof PartitionsChangedException || t instanceof SettingsChangedException) {
        return t.getMessage();
      }
      if (t.getMessage() != null && t.getMessage().contains("has invalid partitions")) {
        return "partitions changed: re-aggregate with a new --application-id ("
            + t.getMessage()
            + ")";
      }
      root = t;
    }
    return "the aggregator stopped: " + root;
  }

  private static AggregatorConfig prepareTopics(AggregatorConfig config) {
    KafkaConnection kafka = connection(config);
    try (Admin admin = Admin.create(kafka.adminProperties())) {
      int partitions =
          KafkaTopics.ensure(
                  admin,
                  kafka,
                  config.inputTopic(),
                  config.inputPartitions() > 0
                      ? config.inputPartitions()
                      : DEFAULT_INPUT_PARTITIONS,
                  Topics.TOKEN_EVENTS_CONFIG)
              .partitions();
      warnIfProducersStamp(admin, config.inputTopic());
      boolean fresh = checkPartitionsUnchanged(admin, config, partitions);
      if (fresh) {
        createInternalTopics(admin, config, partitions);
      }
      Map<String, String> keepForever = Map.of(TopicConfig.RETENTION_MS_CONFIG, "-1");
      // a summary carries its window's histograms: as large as the partials at most
      Map<String, String> summaries =
          Map.of(
              TopicConfig.RETENTION_MS_CONFIG,
              "-1",
              TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
              Integer.toString(AggregatorTopology.MAX_INTERNAL_RECORD_BYTES));
      boolean created =
          KafkaTopics.ensure(admin, kafka, config.outputTopic(), 1, summaries).created();
      KafkaTopics.ensure(admin, kafka, config.deadLetterTopic(), 1, keepForever);
      if (!created) {
        warnIfRetentionDeletes(admin, config.outputTopic());
      }
      return config.withInputPartitions(partitions);
    } catch (ExecutionException | TimeoutException e) {
      throw KafkaFailures.explain(
          e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e,
          kafka,
          kafkaNeeds(config),
          "prepare the aggregator's topics");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while preparing the topics", e);
    }
  }

  /** The connection the aggregator's own clients use: its servers and settings, 15 s bounds. */
  private static KafkaConnection connection(AggregatorConfig config) {
    return KafkaConnection.of(config.bootstrapServers(), config.kafkaProperties())
        .withTimeout(ADMIN_TIMEOUT);
  }

  /**
   * Stage 1's changelog has one partition per input partition: if this application id ran before
   * with another count, its windows can no longer be completed.
   */
  private static boolean checkPartitionsUnchanged(Admin admin, AggregatorConfig config, int now)
      throws ExecutionException, InterruptedException, TimeoutException {
    String changelog = changelog(config, AggregatorTopology.STAGE1_STORE);
    Set<String> topics =
        admin.listTopics().names().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    if (!topics.contains(changelog)) {
      return true;
    }
    try {
      int before =
          admin
              .describeTopics(List.of(changelog))
              .allTopicNames()
              .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
              .get(changelog)
              .partitions()
              .size();
      if (before != now) {
        throw new PartitionsChangedException(
            "partitions changed: re-aggregate with a new --application-id (topic "
                + config.inputTopic()
                + " had "
                + before
                + " partitions when this application id started, now "
                + now
                + ")");
      }
    } catch (ExecutionException e) {
      if (e.getCause() instanceof AuthorizationException denied) {
        // the broker names no topic when describing one is denied: say which
        TopicAuthorizationException named =
            new TopicAuthorizationException(denied.getMessage(), Set.of(changelog));
        named.initCause(denied);
        throw KafkaFailures.explain(
            named, connection(config), kafkaNeeds(config), "read the aggregator's state");
      }
      if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
        throw e;
      }
    }
    return false;
  }

  /**
   * Creates Kafka Streams' internal topics of a new application id with the names and settings
   * Streams gives them (changelogs compacted, the partials topic kept until Streams purges it), so
   * that its first rebalance finds them: it then neither waits for their creation nor rebalances a
   * second time because the metadata changed (about a second of a fresh start). Whatever goes wrong
   * here is left to Streams, which creates what is missing itself.
   */
  private static void createInternalTopics(Admin admin, AggregatorConfig config, int partitions)
      throws InterruptedException {
    Map<String, String> changelog = new java.util.TreeMap<>();
    changelog.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
    changelog.put(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "CreateTime");
    Map<String, String> repartition = new java.util.TreeMap<>();
    repartition.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE);
    repartition.put(TopicConfig.SEGMENT_BYTES_CONFIG, "52428800");
    repartition.put(TopicConfig.RETENTION_MS_CONFIG, "-1");
    repartition.put(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "CreateTime");
    String maxRecord = Integer.toString(AggregatorTopology.MAX_INTERNAL_RECORD_BYTES);
    changelog.put(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, maxRecord);
    repartition.put(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, maxRecord);
    config
        .kafkaProperties()
        .forEach(
            (k, v) -> {
              if (k.startsWith(StreamsConfig.TOPIC_PREFIX)) {
                changelog.put(k.substring(StreamsConfig.TOPIC_PREFIX.length()), v);
                repartition.put(k.substring(StreamsConfig.TOPIC_PREFIX.length()), v);
              }
            });
    String factor = config.kafkaProperties().get(StreamsConfig.REPLICATION_FACTOR_CONFIG);
    Optional<Short> replication =
        factor == null || factor.equals("-1")
            ? Optional.empty()
            : Optional.of(Short.valueOf(factor));
    String app = config.applicationId();
    List<NewTopic> topics =
        List.of(
            new NewTopic(
                    changelog(config, AggregatorTopology.STAGE1_STORE),
                    Optional.of(partitions),
                    replication)
                .configs(changelog),
            new NewTopic(
                    changelog(config, AggregatorTopology.STAGE2_STORE), Optional.of(1), replication)
                .configs(changelog),
            new NewTopic(
                    app + "-" + AggregatorTopology.PARTIALS_TOPIC + "-repartition",
                    Optional.of(1),
                    replication)
                .configs(repartition));
    try {
      admin.createTopics(topics).all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      LOG.debug("Kafka Streams will create its internal topics itself: {}", e.toString());
    }
  }

  private static String changelog(AggregatorConfig config, String store) {
    return config.applicationId() + "-" + store + "-changelog";
  }

  /**
   * What the aggregator needs on a secured cluster: read the input, write the output and the dead
   * letters (creating them when missing), and Kafka Streams' own internal topics, group and
   * transactional ids, all named after the application id (docs/kafka.md lists the ACLs).
   */
  public static KafkaNeeds kafkaNeeds(AggregatorConfig config) {
    String id = config.applicationId();
    return KafkaNeeds.none()
        .topic(config.inputTopic(), DESCRIBE, READ, CREATE)
        .topic(config.outputTopic(), DESCRIBE, WRITE, CREATE)
        .topic(config.deadLetterTopic(), DESCRIBE, WRITE, CREATE)
        .topicsPrefixed(id + "-", CREATE, DESCRIBE, READ, WRITE, DELETE)
        .group(id, READ)
        .transactionalIdsPrefixed(id + "-", WRITE);
  }

  private static void warnIfRetentionDeletes(Admin admin, String topic)
      throws ExecutionException, InterruptedException, TimeoutException {
    Config configs = configsOf(admin, topic);
    if (configs == null) {
      return;
    }
    var retention = configs.get(TopicConfig.RETENTION_MS_CONFIG);
    if (retention != null && !"-1".equals(retention.value())) {
      LOG.warn(
          "topic {} has retention.ms={}: summaries of windows older than that (a replay of old"
              + " events) may be deleted at once; set retention.ms=-1 to keep them",
          topic,
          retention.value());
    }
  }

  /**
   * Warns when the input topic keeps the producers' timestamps (a topic the user created): then the
   * partitions' clocks and the skew checks are the producers' own clocks, and a producer minutes
   * fast closes others' windows early in a recount. Replay topics keep them by design.
   */
  private static void warnIfProducersStamp(Admin admin, String topic)
      throws ExecutionException, InterruptedException, TimeoutException {
    Config configs = configsOf(admin, topic);
    var type = configs == null ? null : configs.get(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG);
    if (type != null
        && "CreateTime".equals(type.value())
        && !topic.startsWith(Topics.REPLAY_PREFIX)) {
      LOG.warn(
          "topic {} keeps the producers' timestamps (message.timestamp.type=CreateTime): windows"
              + " then close by the producers' clocks, and one whose clock runs fast can make a"
              + " recount differ from the live run; set message.timestamp.type=LogAppendTime on it"
              + " (docs/design.md, \"Time, windows and completeness\")",
          topic);
    }
  }

  /** The configs of {@code topic}, or null when they cannot be read (only a warning is lost). */
  private static Config configsOf(Admin admin, String topic)
      throws ExecutionException, InterruptedException, TimeoutException {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    try {
      return admin
          .describeConfigs(List.of(resource))
          .all()
          .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
          .get(resource);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException
          || e.getCause() instanceof AuthorizationException) {
        // a topic created a moment ago, or no DESCRIBE_CONFIGS ACL
        return null;
      }
      throw e;
    }
  }
}

package io.tpotstream.app.run;

import static org.apache.kafka.common.acl.AclOperation.CREATE;
import static org.apache.kafka.common.acl.AclOperation.DELETE;
import static org.apache.kafka.common.acl.AclOperation.DESCRIBE;
import static org.apache.kafka.common.acl.AclOperation.READ;
import static org.apache.kafka.common.acl.AclOperation.WRITE;

import io.tpotstream.aggregator.Aggregator;
import io.tpotstream.common.Topics;
import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.kafka.KafkaFailures;
import io.tpotstream.common.kafka.KafkaNeeds;
import io.tpotstream.common.kafka.KafkaTopics;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

/**
 * What one {@code tpot run} owns on a cluster it may share with other runs and a long-lived
 * pipeline: an aggregator application id, the topic its summaries go to, and the sink's group, all
 * named {@code tpot-run-<tag>…}. The aggregator starts at the end of the token events as they are
 * before the run's producer starts and keeps only the run's events, so the run reports itself
 * alone; at its end the run deletes its topics and groups.
 *
 * @param applicationId the aggregator's application id (its internal topics, its group, its
 *     transactional ids start with it)
 * @param summariesTopic the run's window summaries, read by its sink and live view
 * @param sinkGroup the run's sink group (its transactional id is {@code <group>-metrics})
 */
public record RunOnCluster(String applicationId, String summariesTopic, String sinkGroup) {
  /** Every run's resources start with this: one prefixed ACL covers them (docs/kafka.md). */
  public static final String PREFIX = "tpot-run-";

  /** A run killed this long ago (by its tag) and whose aggregator has no member is dead. */
  static final Duration LEFTOVER_AGE = Duration.ofMinutes(10);

  private static final int RANDOM_CHARS = 3;

  /** Names no other run has: the start time (base 36 ms) and a random suffix. */
  public static RunOnCluster fresh() {
    String random =
        Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36) + 36 * 36 * 36, 36)
            .substring(1);
    return named(Long.toString(System.currentTimeMillis(), 36) + random);
  }

  private static RunOnCluster named(String tag) {
    String id = PREFIX + tag;
    return new RunOnCluster(id, id + "-window-summaries", id + "-sink");
  }

  /** The start time written in an application id, if it is a run's. */
  static Optional<Instant> startOf(String applicationId) {
    if (!applicationId.startsWith(PREFIX)) {
      return Optional.empty();
    }
    String tag = applicationId.substring(PREFIX.length());
    if (tag.length() <= RANDOM_CHARS || !tag.matches("[0-9a-z]+")) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          Instant.ofEpochMilli(Long.parseLong(tag.substring(0, tag.length() - RANDOM_CHARS), 36)));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /**
   * Deletes what runs killed before they could clean up left behind: runs started more than {@link
   * #LEFTOVER_AGE} ago whose aggregator group has no member (a live run's always has). Says what it
   * removed; a failure only costs a warning.
   */
  static void removeLeftovers(KafkaConnection kafka, PrintStream out) {
    List<String> dead = new ArrayList<>();
    try (Admin admin = Admin.create(kafka.adminProperties())) {
      Instant before = Instant.now().minus(LEFTOVER_AGE);
      List<String> candidates =
          admin.listGroups().all().get(millis(kafka), TimeUnit.MILLISECONDS).stream()
              .map(GroupListing::groupId)
              .filter(id -> startOf(id).filter(start -> start.isBefore(before)).isPresent())
              .toList();
      if (candidates.isEmpty()) {
        return;
      }
      Map<String, ConsumerGroupDescription> described =
          admin.describeConsumerGroups(candidates).all().get(millis(kafka), TimeUnit.MILLISECONDS);
      described.forEach(
          (id, group) -> {
            if (group.members().isEmpty()) {
              dead.add(id);
            }
          });
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    for (String id : dead) {
      RunOnCluster run = named(id.substring(PREFIX.length()));
      run.cleanUp(kafka, out);
      out.println(
          "Removed the topics and groups of " + id + ", a run that ended without cleaning up.");
    }
  }

  /**
   * What a run needs on a secured cluster: every run's topics, groups and transactional ids start
   * with {@value #PREFIX}, so that one prefixed ACL each covers all runs (docs/kafka.md).
   */
  public KafkaNeeds needs(String inputTopic) {
    return KafkaNeeds.none()
        .topic(inputTopic, DESCRIBE, READ)
        .topicsPrefixed(PREFIX, CREATE, DESCRIBE, READ, WRITE, DELETE)
        .groupsPrefixed(PREFIX, READ, DELETE)
        .transactionalIdsPrefixed(PREFIX, WRITE);
  }

  /**
   * Commits the end offsets of {@code inputTopic} (created when missing) as the aggregator group's
   * starting point, so that it reads only what is published from now on.
   */
  void startAtEnd(KafkaConnection kafka, String inputTopic) {
    String doing = "start the run's aggregator at the end of " + inputTopic;
    try (Admin admin = Admin.create(kafka.adminProperties())) {
      int partitions =
          KafkaTopics.ensure(
                  admin,
                  kafka,
                  inputTopic,
                  Aggregator.DEFAULT_INPUT_PARTITIONS,
                  Topics.TOKEN_EVENTS_CONFIG)
              .partitions();
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (int p = 0; p < partitions; p++) {
        latest.put(new TopicPartition(inputTopic, p), OffsetSpec.latest());
      }
      Map<TopicPartition, ListOffsetsResultInfo> ends =
          admin.listOffsets(latest).all().get(millis(kafka), TimeUnit.MILLISECONDS);
      Map<TopicPartition, OffsetAndMetadata> start = new HashMap<>();
      ends.forEach((tp, info) -> start.put(tp, new OffsetAndMetadata(info.offset())));
      admin
          .alterConsumerGroupOffsets(applicationId, start)
          .all()
          .get(millis(kafka), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw KafkaFailures.explain(e.getCause(), kafka, needs(inputTopic), doing);
    } catch (TimeoutException e) {
      throw KafkaFailures.noAnswer(kafka, doing, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while trying to " + doing, e);
    }
  }

  /**
   * Deletes the run's topics (the summaries and the aggregator's internal topics) and groups; once
   * the aggregator has stopped. What cannot be deleted is named in a warning.
   */
  void cleanUp(KafkaConnection kafka, PrintStream out) {
    String doing = "remove the run's topics and groups";
    try (Admin admin = Admin.create(kafka.adminProperties())) {
      Set<String> topics = admin.listTopics().names().get(millis(kafka), TimeUnit.MILLISECONDS);
      List<String> mine = topics.stream().filter(t -> t.startsWith(applicationId + "-")).toList();
      if (!mine.isEmpty()) {
        admin.deleteTopics(mine).all().get(millis(kafka), TimeUnit.MILLISECONDS);
      }
      // a group the user cannot see was never created by it
      Set<String> groups =
          admin.listGroups().all().get(millis(kafka), TimeUnit.MILLISECONDS).stream()
              .map(GroupListing::groupId)
              .collect(java.util.stream.Collectors.toSet());
      for (String group : List.of(applicationId, sinkGroup)) {
        if (!groups.contains(group)) {
          continue;
        }
        try {
          // Kafka Streams does not leave its group on close: its members would hold it 45 s
          admin
              .removeMembersFromConsumerGroup(group, new RemoveMembersFromConsumerGroupOptions())
              .all()
              .get(millis(kafka), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
          // no member left (the sink never has one), or no such group
        }
        try {
          admin
              .deleteConsumerGroups(List.of(group))
              .all()
              .get(millis(kafka), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof GroupIdNotFoundException)) {
            throw e;
          }
        }
      }
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      out.println(
          "warning: this run's topics ("
              + applicationId
              + "-…) and groups ("
              + applicationId
              + ", "
              + sinkGroup
              + ") are left on the cluster: "
              + KafkaFailures.explain(cause, kafka, needs(""), doing).getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static long millis(KafkaConnection kafka) {
    return kafka.timeout().toMillis();
  }
}

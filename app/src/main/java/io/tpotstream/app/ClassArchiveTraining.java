package io.tpotstream.app;

import io.tpotstream.aggregator.Aggregator;
import io.tpotstream.aggregator.AggregatorConfig;
import io.tpotstream.broker.LocalKafka;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tpot class-archive-training} (hidden): the short run the launcher makes once per build
 * with {@code -XX:ArchiveClassesAtExit}, so that the JVM writes every class it loaded, parsed and
 * verified, into a class-data sharing archive that each later command maps instead
 * (ARCHITECTURE.md, "A class archive made at build"). It runs the real commands, in this JVM, on an
 * embedded broker and the built-in simulator: produce a few requests, aggregate them until the
 * first summary, export the topic, compute stats from the file, replay it. Any class it misses
 * still loads from the jar as usual; a failure only means no archive.
 */
@Command(
    name = ClassArchiveTraining.NAME,
    hidden = true,
    description = "The launcher's training run for the class archive (not for users).")
final class ClassArchiveTraining implements Callable<Integer> {
  static final String NAME = "class-archive-training";

  @Option(
      names = "--work-dir",
      required = true,
      description = "The embedded broker's log and the export go here; the caller removes it.")
  Path workDir;

  @Option(
      names = "--bootstrap-server",
      description = "A broker to train on instead of an embedded one (the test's).")
  String bootstrapServer;

  @Override
  public Integer call() throws Exception {
    Files.createDirectories(workDir);
    try (Simulator simulator =
        Simulator.start(SimulatorConfig.defaults().withPort(0).withSeed(42L))) {
      if (bootstrapServer != null) {
        train(bootstrapServer, simulator);
      } else {
        try (LocalKafka kafka = LocalKafka.create(0, workDir.resolve("kafka")).start()) {
          train(kafka.bootstrapServers(), simulator);
        }
      }
    }
    return 0;
  }

  private void train(String bootstrap, Simulator simulator) {
    String run = "training-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    String events = run + "-events";
    Path file = workDir.resolve(run + ".jsonl.zst");
    tpot(
        "produce",
        "--quiet",
        "--bootstrap-server",
        bootstrap,
        "--topic",
        events,
        "--base-url",
        simulator.openAiBaseUrl(),
        "--models",
        "model-a,model-b",
        "--total-requests",
        "12",
        "--concurrency",
        "4",
        "--max-tokens",
        "24",
        "--warmup",
        "0");
    aggregateUntilFirstSummary(bootstrap, events, run);
    tpot("export", "--quiet", "--bootstrap-server", bootstrap, "--topic", events, "--file", file);
    tpot("stats", "--quiet", "--file", file);
    tpot(
        "replay",
        "--quiet",
        "--bootstrap-server",
        bootstrap,
        "--topic",
        run + "-replayed",
        "--file",
        file);
  }

  /** A command as a user types it, run in this JVM; a failure ends the training. */
  private static void tpot(Object... args) {
    String[] line = Stream.of(args).map(String::valueOf).toArray(String[]::new);
    int exit = Tpot.commandLine().execute(line);
    if (exit != 0) {
      throw new IllegalStateException("tpot " + String.join(" ", line) + " exited with " + exit);
    }
  }

  /** The aggregator as {@code tpot aggregate} starts it, until it has written one summary. */
  private static void aggregateUntilFirstSummary(String bootstrap, String events, String run) {
    String summaries = run + "-summaries";
    AggregatorConfig config =
        AggregatorConfig.defaults(bootstrap)
            .withTopics(events, summaries, run + "-dead-letters")
            .withApplicationId(run + "-aggregator");
    Map<String, Object> settings =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            "earliest",
            ConsumerConfig.GROUP_ID_CONFIG,
            run + "-reader");
    try (Aggregator aggregator = Aggregator.start(config);
        KafkaConsumer<byte[], byte[]> reader =
            new KafkaConsumer<>(
                settings, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      reader.subscribe(List.of(summaries));
      long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
      while (reader.poll(Duration.ofMillis(200)).isEmpty()) {
        if (System.nanoTime() > deadline || aggregator.stopped().isDone()) {
          throw new IllegalStateException("the aggregator wrote no summary within a minute");
        }
      }
    }
  }
}

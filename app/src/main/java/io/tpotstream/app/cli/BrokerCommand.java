package io.tpotstream.app.cli;

import io.tpotstream.broker.LocalKafka;
import io.tpotstream.common.PortInUse;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code tpot broker}: a real single-node Kafka broker on 127.0.0.1 until Ctrl-C or SIGTERM. */
@Command(
    name = "broker",
    mixinStandardHelpOptions = true,
    description = "Run a local single-node Kafka 4.4 broker (KRaft) on 127.0.0.1.")
final class BrokerCommand implements Callable<Integer> {
  @Mixin ListenPortOptions port = new ListenPortOptions(9092);

  @Option(
      names = "--data-dir",
      description =
          "Keep the log here across restarts (default: a temporary directory, removed on stop).")
  Path dataDir;

  @Override
  public Integer call() throws InterruptedException {
    // one line naming the port, before Kafka tries it and logs pages of stack traces
    PortInUse.check(LocalKafka.HOST, port.port, "--port");
    LocalKafka kafka = LocalKafka.create(port.port, dataDir);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  System.out.println("Stopping Kafka broker at " + kafka.bootstrapServers());
                  kafka.stop();
                  stopped.countDown();
                },
                "broker-stop"));
    kafka.start();
    System.out.println("Kafka broker ready at " + kafka.bootstrapServers());
    System.out.println(
        dataDir == null
            ? "Data in a temporary directory, removed on stop. Ctrl-C to stop."
            : "Data in " + kafka.dataDir() + ". Ctrl-C to stop.");
    System.out.flush();
    stopped.await();
    return 0;
  }
}

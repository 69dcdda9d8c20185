package io.tpotstream.app.cli;

import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.http.ModelLister;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code tpot models}: lists the ids of {@code GET /v1/models} of the configured target. */
@Command(
    name = "models",
    mixinStandardHelpOptions = true,
    header = "List the models the configured API serves (GET /v1/models).",
    description = "List the models the configured API serves (GET /v1/models), one id a line.")
final class ModelsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ProducerConfigOptions configOptions;

  @Override
  public Integer call() throws Exception {
    ProducerConfig config = configOptions.loadForListing();
    Vertx vertx = Vertx.vertx();
    try {
      List<String> ids =
          ModelLister.list(vertx, config).toCompletionStage().toCompletableFuture().get();
      ids.forEach(spec.commandLine().getOut()::println);
      spec.commandLine().getOut().flush();
      return 0;
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    } finally {
      vertx.close();
    }
  }
}

package io.tpotstream.producer.config;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The producer's config file as Jackson binds it (the seed script's keys plus extensions, docs/
 * producer.md): each value as the user wrote it, typed; {@link ConfigLoader} checks the values,
 * fills the defaults and builds the {@link ProducerConfig}. A {@link JsonNode} component holds a
 * key whose value may take several forms (a duration as seconds or text, models as a list or a
 * comma-separated string) or whose explicit {@code null} means something ({@code max_tokens}).
 */
@JsonIgnoreProperties(ignoreUnknown = true) // reported as warnings by ConfigLoader
record ConfigFile(
    @JsonProperty("base_url") String baseUrl,
    @JsonProperty("api_key") String apiKey,
    JsonNode models,
    Integer concurrency,
    @JsonProperty("total_requests") Integer totalRequests,
    @JsonProperty("max_tokens") JsonNode maxTokens,
    String prompt,
    JsonNode timeout,
    String api,
    Double rate,
    String arrival,
    Long seed,
    JsonNode duration,
    @JsonProperty("prompts_file") String promptsFile,
    Map<String, String> labels,
    @JsonProperty("include_usage") Boolean includeUsage,
    @JsonProperty("continuous_usage") Boolean continuousUsage,
    Map<String, String> headers,
    @JsonProperty("extra_body") ObjectNode extraBody,
    TimeoutKeys timeouts,
    @JsonProperty("run_id") String runId,
    @JsonProperty("stop_grace") JsonNode stopGrace,
    String proxy,
    @JsonProperty("anthropic_version") String anthropicVersion,
    String dataset,
    @JsonProperty("input_len") String inputLen,
    @JsonProperty("output_len") String outputLen,
    String schedule,
    String sweep,
    String warmup,
    @JsonProperty("ca_file") String caFile,
    Boolean insecure,
    @JsonProperty("client_cert") String clientCert,
    @JsonProperty("client_key") String clientKey,
    String trace,
    @JsonProperty("trace_format") String traceFormat,
    @JsonProperty("trace_speed") Double traceSpeed,
    @JsonProperty("trace_window") String traceWindow,
    @JsonProperty("ignore_eos") Boolean ignoreEos,
    @JsonProperty("engine_metrics") JsonNode engineMetrics,
    @JsonProperty("engine_metrics_interval") JsonNode engineMetricsInterval,
    @JsonProperty("engine_mapping") String engineMapping) {

  /** Every key of the file, as written in it. */
  static final Set<String> KEYS = keysOf(ConfigFile.class);

  /** The {@code timeouts} object; any other key in it is an error. */
  record TimeoutKeys(
      JsonNode connect,
      @JsonProperty("first_token") JsonNode firstToken,
      JsonNode idle,
      JsonNode total) {
    static final Set<String> KEYS = keysOf(TimeoutKeys.class);
  }

  private static Set<String> keysOf(Class<? extends Record> type) {
    return Arrays.stream(type.getRecordComponents())
        .map(
            c -> {
              JsonProperty p = c.getAccessor().getAnnotation(JsonProperty.class);
              return p == null ? c.getName() : p.value();
            })
        .collect(Collectors.toUnmodifiableSet());
  }
}

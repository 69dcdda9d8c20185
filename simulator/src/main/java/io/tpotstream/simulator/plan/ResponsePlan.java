package io.tpotstream.simulator.plan;

/**
 * Everything one response will send, decided when the request arrives: the output chunks (text,
 * kind, tokens), the scheduled wait before each (the first is the TTFT, from the request's arrival,
 * its gateway delay included; the others are gaps from the previous chunk's scheduled instant), the
 * injected faults, and the prompt tokens the prefix cache held ({@link #withPrompt}). Immutable.
 */
public final class ResponsePlan {
  /** {@link #cutAfterChunks()} and {@link #malformedBeforeSeq()} when there is none. */
  public static final int NONE = -1;

  private final Fault fault;
  private final int retryAfterSeconds;
  private final String[] texts;
  private final boolean[] reasoning;
  private final int[] tokens;
  private final long[] waitNs;
  private final int promptTokens;
  private final int outputTokens;
  private final int reasoningTokens;
  private final boolean lengthCapped;
  private final int cutAfterChunks;
  private final int malformedBeforeSeq;
  private final Integer cachedTokens;
  private final long gatewayDelayNs;

  ResponsePlan(
      Fault fault,
      int retryAfterSeconds,
      String[] texts,
      boolean[] reasoning,
      int[] tokens,
      long[] waitNs,
      int promptTokens,
      int outputTokens,
      boolean lengthCapped,
      int cutAfterChunks,
      int malformedBeforeSeq,
      long gatewayDelayNs) {
    this(
        fault,
        retryAfterSeconds,
        texts,
        reasoning,
        tokens,
        waitNs,
        promptTokens,
        outputTokens,
        lengthCapped,
        cutAfterChunks,
        malformedBeforeSeq,
        null,
        gatewayDelayNs);
  }

  private ResponsePlan(
      Fault fault,
      int retryAfterSeconds,
      String[] texts,
      boolean[] reasoning,
      int[] tokens,
      long[] waitNs,
      int promptTokens,
      int outputTokens,
      boolean lengthCapped,
      int cutAfterChunks,
      int malformedBeforeSeq,
      Integer cachedTokens,
      long gatewayDelayNs) {
    this.fault = fault;
    this.retryAfterSeconds = retryAfterSeconds;
    this.texts = texts;
    this.reasoning = reasoning;
    this.tokens = tokens;
    this.waitNs = waitNs;
    this.promptTokens = promptTokens;
    this.outputTokens = outputTokens;
    int reasoningSum = 0;
    for (int i = 0; i < tokens.length; i++) {
      reasoningSum += reasoning[i] ? tokens[i] : 0;
    }
    this.reasoningTokens = reasoningSum;
    this.lengthCapped = lengthCapped;
    this.cutAfterChunks = cutAfterChunks;
    this.malformedBeforeSeq = malformedBeforeSeq;
    this.cachedTokens = cachedTokens;
    this.gatewayDelayNs = gatewayDelayNs;
  }

  /**
   * This plan for a prompt of which the prefix cache held {@code cachedTokens} (null: no cache, so
   * none reported), its TTFT longer by {@code prefillNs}, the time the other prompt tokens take.
   */
  public ResponsePlan withPrompt(Integer cachedTokens, long prefillNs) {
    long[] waits = waitNs.clone();
    if (waits.length > 0) {
      waits[0] += prefillNs;
    }
    return new ResponsePlan(
        fault,
        retryAfterSeconds,
        texts,
        reasoning,
        tokens,
        waits,
        promptTokens,
        outputTokens,
        lengthCapped,
        cutAfterChunks,
        malformedBeforeSeq,
        cachedTokens,
        gatewayDelayNs);
  }

  /**
   * The prompt tokens the prefix cache held, reported as {@code cached_tokens} ({@code
   * cache_read_input_tokens}); null when the simulator runs without a cache (none reported).
   */
  public Integer cachedTokens() {
    return cachedTokens;
  }

  /**
   * How much later than the engine produced them its chunks reach the socket, in ns (the profile's
   * {@code gatewayDelayMs}): part of {@link #waitNs(int) waitNs(0)}, and so of every later chunk's
   * instant, but not of the engine's view.
   */
  public long gatewayDelayNs() {
    return gatewayDelayNs;
  }

  public Fault fault() {
    return fault;
  }

  public int retryAfterSeconds() {
    return retryAfterSeconds;
  }

  /** Output chunks, in order. */
  public int chunks() {
    return texts.length;
  }

  public String text(int seq) {
    return texts[seq];
  }

  /** True for a reasoning chunk ({@code reasoning_content}, Anthropic {@code thinking}). */
  public boolean reasoning(int seq) {
    return reasoning[seq];
  }

  public int tokens(int seq) {
    return tokens[seq];
  }

  /**
   * The scheduled wait before chunk {@code seq}, in ns: the TTFT for 0 (from arrival; its prefill
   * and the {@link #gatewayDelayNs() gateway delay} included), the gap from the previous chunk's
   * scheduled instant otherwise.
   */
  public long waitNs(int seq) {
    return waitNs[seq];
  }

  /** The sum of the scheduled waits, in ns: the response's duration if pacing were perfect. */
  public long totalWaitNs() {
    long total = 0;
    for (long wait : waitNs) {
      total += wait;
    }
    return total;
  }

  public int promptTokens() {
    return promptTokens;
  }

  /** All output tokens, reasoning included. */
  public int outputTokens() {
    return outputTokens;
  }

  /** Output tokens sent as reasoning. */
  public int reasoningTokens() {
    return reasoningTokens;
  }

  /** Output tokens up to and including chunk {@code seq}. */
  public int tokensThrough(int seq) {
    int sum = 0;
    for (int i = 0; i <= seq; i++) {
      sum += tokens[i];
    }
    return sum;
  }

  /** True when the output stopped at the request's token cap ({@code length}). */
  public boolean lengthCapped() {
    return lengthCapped;
  }

  /** The chunks sent before the connection is cut, or {@link #NONE}. */
  public int cutAfterChunks() {
    return cutAfterChunks;
  }

  /** The chunk that a malformed line precedes, or {@link #NONE}. */
  public int malformedBeforeSeq() {
    return malformedBeforeSeq;
  }

  /** The concatenated text of the reasoning ({@code true}) or content chunks. */
  public String joinedText(boolean ofReasoning) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < texts.length; i++) {
      if (reasoning[i] == ofReasoning) {
        text.append(texts[i]);
      }
    }
    return text.toString();
  }
}

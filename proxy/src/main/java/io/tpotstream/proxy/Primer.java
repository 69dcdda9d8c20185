package io.tpotstream.proxy;

/**
 * The server the proxy primes its path against before it listens, given by whoever wires the proxy
 * ({@code tpot proxy} passes the simulator): the proxy carries no server of its own.
 */
@FunctionalInterface
public interface Primer {
  /**
   * Starts, in this process, a server that streams OpenAI chat completions ({@code POST
   * /v1/chat/completions}) and Anthropic messages ({@code POST /v1/messages}) of {@code model} with
   * gaps well under a millisecond, so that a short budget forwards many chunks.
   */
  Server start(String model);

  /** A started priming server; closed when priming ends. */
  interface Server extends AutoCloseable {
    /** Its root URL, e.g. {@code http://127.0.0.1:41234}. */
    String baseUrl();

    @Override
    void close();
  }
}

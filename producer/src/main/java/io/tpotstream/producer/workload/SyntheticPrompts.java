package io.tpotstream.producer.workload;

import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.SplittableRandom;

/**
 * Synthetic single-turn prompts whose input length (in tokens) is drawn from a distribution, with
 * {@code max_tokens} drawn from another (or the config's when none is given). Prompt {@code n}
 * depends only on the seed and {@code n}. The text is random common English words, each one token
 * for the usual BPE tokenizers (a leading space and a short word), so the length is what was drawn
 * within a few percent, and no two prompts share a prefix a server could cache.
 */
public final class SyntheticPrompts implements ConversationSource {
  private static final String[] WORDS =
      ("the of and to in is it you that he was for on are as with his they at be this have"
              + " from or one had by word but not what all were we when your can said there use an"
              + " each which she do how their if will up other about out many then them these so"
              + " some her would make like him into time has look two more write go see number no"
              + " way could people my than first water been call who oil its now find long down day"
              + " did get come made may part over new sound take only little work know place year"
              + " live me back give most very after thing our just name good sentence man think say"
              + " great where help through much before line right too mean old any same tell boy"
              + " follow came want show also around form three small set put end does another well"
              + " large must big even such because turn here why ask went men read need land")
          .split(" ");

  private final LengthDistribution input;
  private final LengthDistribution output;
  private final long seed;

  /**
   * @param output the {@code max_tokens} distribution, or null for the config's {@code max_tokens}
   */
  public SyntheticPrompts(LengthDistribution input, LengthDistribution output, long seed) {
    this.input = input;
    this.output = output;
    this.seed = seed;
  }

  @Override
  public Conversation get(long n) {
    SplittableRandom random = new SplittableRandom(seed ^ (n * 0x9E3779B97F4A7C15L));
    int tokens = input.sample(random);
    Integer maxTokens = output == null ? null : output.sample(random);
    StringBuilder text = new StringBuilder(tokens * 5);
    for (int i = 0; i < tokens; i++) {
      if (i > 0) {
        text.append(' ');
      }
      text.append(WORDS[random.nextInt(WORDS.length)]);
    }
    ArrayNode messages = Dataset.userMessage(text.toString());
    return Conversation.of(new Turn(messages, maxTokens, tokens));
  }

  @Override
  public String describe() {
    return "synthetic prompts, input "
        + input.text()
        + " tokens"
        + (output == null ? "" : ", output " + output.text() + " tokens");
  }

  @Override
  public boolean labelsInputLength() {
    return true;
  }
}

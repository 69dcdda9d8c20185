package io.tpotstream.producer.workload;

import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.SplittableRandom;

/**
 * Synthetic single-turn prompts whose input length (in tokens) is drawn from a distribution, with
 * {@code max_tokens} drawn from another (or the config's when none is given). Prompt {@code n}
 * depends only on the seed and {@code n}. The text is random common English words, each one token
 * for the usual BPE tokenizers (a leading space and a short word), so the length is what was drawn
 * within a few percent (exactly, for a server that counts four characters a token: the words have
 * three letters), and no two prompts share a prefix a server could cache.
 */
public final class SyntheticPrompts implements ConversationSource {
  /**
   * Common three-letter English words: with the space before it, each is one token for the usual
   * BPE tokenizers and four characters, exactly one token for a server that counts four characters
   * a token (OpenAI's rule of thumb, and the simulator's count).
   */
  private static final String[] WORDS =
      ("the and for are but not you all any can had her was one our out day get has him his"
              + " how man new now old see two way who boy did its let put say she too use car dog cat"
              + " run big end far few got red sun top yes yet ask own set try why air age ago art bad"
              + " bed box buy cut eat eye fly fun hot job key law lay leg lie low map may mix net oil"
              + " pay per pet sea sit six sky son tea ten war win act add arm bag bar bit bus cup dry"
              + " egg fat fit fix gas guy hat hit ice lot mad men met nor off pen pop raw row sad sat"
              + " saw tax")
          .split(" ");

  /** Characters of one token: a space and a word. */
  static final int CHARS_PER_TOKEN = 4;

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
    StringBuilder text = new StringBuilder(tokens * CHARS_PER_TOKEN);
    appendTokens(text, tokens, random);
    ArrayNode messages = Dataset.userMessage(text.substring(1));
    return Conversation.of(new Turn(messages, maxTokens, tokens));
  }

  /** Appends {@code tokens} tokens drawn from {@code random}, each a space and a word. */
  static void appendTokens(StringBuilder text, int tokens, SplittableRandom random) {
    for (int i = 0; i < tokens; i++) {
      text.append(' ').append(WORDS[random.nextInt(WORDS.length)]);
    }
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

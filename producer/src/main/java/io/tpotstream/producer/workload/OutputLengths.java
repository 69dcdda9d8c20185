package io.tpotstream.producer.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A source whose turns get {@code max_tokens} drawn from a distribution (seeded per conversation),
 * for datasets run with {@code --output-len}: the dataset's own {@code max_tokens} are replaced.
 */
public record OutputLengths(ConversationSource source, LengthDistribution output, long seed)
    implements ConversationSource {

  @Override
  public Conversation get(long n) {
    SplittableRandom random = new SplittableRandom(seed ^ (n * 0xC2B2AE3D27D4EB4FL));
    List<Turn> turns = new ArrayList<>();
    for (Turn t : source.get(n).turns()) {
      turns.add(new Turn(t.messages(), output.sample(random), t.inputTokens()));
    }
    return new Conversation(turns);
  }

  @Override
  public String describe() {
    return source.describe() + ", output " + output.text() + " tokens";
  }

  @Override
  public boolean labelsInputLength() {
    return source.labelsInputLength();
  }
}

package io.tpotstream.producer.workload;

/** The config's {@code prompt}: the same one-message conversation for every request. */
public record SinglePrompt(Conversation conversation) implements ConversationSource {
  public static SinglePrompt of(String prompt) {
    var messages = Dataset.userMessage(prompt);
    return new SinglePrompt(
        Conversation.of(new Turn(messages, null, InputLength.estimate(messages))));
  }

  @Override
  public Conversation get(long n) {
    return conversation;
  }

  @Override
  public String describe() {
    return "config key 'prompt'";
  }

  @Override
  public boolean labelsInputLength() {
    return false;
  }
}

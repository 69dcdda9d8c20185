package io.tpotstream.app.secured;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The {@code kafka-acls.sh} lines of docs/kafka.md's "ACLs a user needs", read as ACL bindings for
 * a principal: the test grants exactly what the documentation says, nothing more.
 */
final class DocumentedAcls {
  static final Path DOC = Path.of("..", "docs", "kafka.md");
  static final String SECTION = "\n## ACLs a user needs";

  private DocumentedAcls() {}

  static List<AclBinding> forPrincipal(String principal) throws IOException {
    String doc = Files.readString(DOC);
    int start = doc.indexOf(SECTION);
    if (start < 0) {
      throw new AssertionError(DOC + " has no section '" + SECTION.trim() + "'");
    }
    Matcher block = Pattern.compile("```bash\n(.*?)```", Pattern.DOTALL).matcher(doc);
    if (!block.find(start)) {
      throw new AssertionError("no ```bash block in " + SECTION.trim());
    }
    List<AclBinding> acls = new ArrayList<>();
    for (String line : block.group(1).replace("\\\n", " ").split("\n")) {
      if (line.startsWith("kafka-acls.sh")) {
        acls.addAll(parse(line.trim().split("\\s+"), principal));
      }
    }
    if (acls.isEmpty()) {
      throw new AssertionError("no kafka-acls.sh line in " + SECTION.trim());
    }
    return acls;
  }

  /** DescribeConfigs → DESCRIBE_CONFIGS, as kafka-acls.sh reads it. */
  private static AclOperation operation(String word) {
    return AclOperation.valueOf(
        word.replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT));
  }

  private static List<AclBinding> parse(String[] words, String principal) {
    List<AclOperation> operations = new ArrayList<>();
    PatternType pattern = PatternType.LITERAL;
    ResourceType type = null;
    String name = null;
    for (int i = 0; i < words.length; i++) {
      switch (words[i]) {
        case "--operation" -> operations.add(operation(words[++i]));
        case "--resource-pattern-type" ->
            pattern = PatternType.valueOf(words[++i].toUpperCase(Locale.ROOT));
        case "--topic" -> {
          type = ResourceType.TOPIC;
          name = words[++i];
        }
        case "--group" -> {
          type = ResourceType.GROUP;
          name = words[++i];
        }
        case "--transactional-id" -> {
          type = ResourceType.TRANSACTIONAL_ID;
          name = words[++i];
        }
        case "--cluster" -> {
          type = ResourceType.CLUSTER;
          name = "kafka-cluster";
        }
        default -> {
          // bootstrap server, command config, --add, the principal: given by the test
        }
      }
    }
    if (type == null || operations.isEmpty()) {
      throw new AssertionError("cannot read: " + String.join(" ", words));
    }
    List<AclBinding> acls = new ArrayList<>();
    for (AclOperation op : operations) {
      acls.add(
          new AclBinding(
              new ResourcePattern(type, name, pattern),
              new AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW)));
    }
    return acls;
  }
}

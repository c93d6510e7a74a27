import java.lang.instrument.Instrumentation;

/**
 * The Java agent LocalStack starts DynamoDB Local with. LocalStack's own agent only lifts
 * DynamoDB Local's limit of 20 global secondary indexes per table; clause-review's table has
 * one, so an agent that changes nothing serves.
 */
public final class NoOpAgent {
  private NoOpAgent() {}

  public static void premain(String args, Instrumentation instrumentation) {}
}

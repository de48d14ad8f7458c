package dev.baton.operator;

/** The jar's words besides running the operator: {@code demo} and {@code version}. */
final class CommandLine {

  private CommandLine() {}

  /** Ends the process when {@code args} asked for something other than running the operator. */
  static void exitUnlessRun(String[] args) throws Exception {
    if (args.length == 0) {
      return;
    }
    if (args[0].equals("demo")) {
      // The demo is a jar of its own, so that the operator's image carries none of it; where it
      // lies is the build's business, not this jar's.
      System.err.println(
          "The demo is its own jar: ./mvnw -q -DskipTests package && java -jar"
              + " demo/target/baton-demo.jar");
      System.exit(2);
    }
    if (args[0].equals("version")) {
      // Also the image build's proof that its class archive maps (java -Xshare:on ... version).
      System.out.println("baton-operator " + version());
      System.exit(0);
    }
    System.err.println("usage: java -jar baton-operator.jar [demo|version]");
    System.exit(2);
  }

  /** The version the jar was built as, from its manifest. */
  static String version() {
    String v = BatonOperator.class.getPackage().getImplementationVersion();
    return v == null ? "(unknown: not run from the built jar)" : v;
  }
}

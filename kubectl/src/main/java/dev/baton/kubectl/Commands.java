package dev.baton.kubectl;

import dev.baton.client.GoDuration;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The command line: the root with kubectl's flags (inherited by every subcommand, so they stand
 * before or after it, as with kubectl), and the commands that read and move Baton's resources.
 */
final class Commands {

  private Commands() {}

  /** The whole command tree of one run, bound to its session. */
  static CommandLine line(Session session) {
    CommandLine line = new CommandLine(new Root(session));
    line.addSubcommand(new Status(session));
    line.addSubcommand(new Switchover(session));
    line.addSubcommand(new Pause(session));
    line.addSubcommand(new Resume(session));
    line.addSubcommand(new Release(session));
    line.addSubcommand(new LogsCommand(session));
    line.addSubcommand(new ReportCommand(session));
    line.addSubcommand(new Completion.Scripts());
    line.setCaseInsensitiveEnumValuesAllowed(true);
    return line;
  }

  /** Output formats of the reads, as kubectl's -o names them. */
  enum Format {
    json,
    yaml
  }

  @Command(
      name = "kubectl baton",
      mixinStandardHelpOptions = true,
      versionProvider = Root.Version.class,
      description = {
        "Baton's leader elections and locks as the operator sees them, and the levers to move them."
      },
      footer = {
        "",
        "Exit codes: 0 done, 1 refused or failed, 2 a wrong command line.",
        "Use \"kubectl baton <command> --help\" for more about a command."
      })
  static final class Root implements Runnable {
    private final Session session;

    @Spec CommandSpec spec;

    Root(Session session) {
      this.session = session;
    }

    @Option(
        names = "--kubeconfig",
        scope = ScopeType.INHERIT,
        paramLabel = "FILE",
        description = "Path to the kubeconfig file (default: KUBECONFIG, else ~/.kube/config).")
    void kubeconfig(String file) {
      session.flags.kubeconfig = file;
    }

    @Option(
        names = "--context",
        scope = ScopeType.INHERIT,
        paramLabel = "NAME",
        description = "The kubeconfig context to use (default: its current context).")
    void context(String name) {
      session.flags.context = name;
    }

    @Option(
        names = {"-n", "--namespace"},
        scope = ScopeType.INHERIT,
        paramLabel = "NAMESPACE",
        description = "The namespace (default: the context's, else default).")
    void namespace(String ns) {
      session.flags.namespace = ns;
    }

    @Option(
        names = "--as",
        scope = ScopeType.INHERIT,
        paramLabel = "USER",
        description = "Act as this user (impersonation, as kubectl --as).")
    void as(String user) {
      session.flags.as = user;
    }

    @Option(
        names = "--as-group",
        scope = ScopeType.INHERIT,
        paramLabel = "GROUP",
        description = "Act with this group, repeatable (as kubectl --as-group).")
    void asGroup(List<String> groups) {
      session.flags.asGroups.clear();
      session.flags.asGroups.addAll(groups);
    }

    @Override
    public void run() {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "no command given: status, switchover, pause, resume, ...");
    }

    /** The version the build wrote into the jar's manifest. */
    static final class Version implements CommandLine.IVersionProvider {
      @Override
      public String[] getVersion() {
        String v = KubectlBaton.class.getPackage().getImplementationVersion();
        return new String[] {"kubectl baton " + (v == null ? "(development build)" : v)};
      }
    }
  }

  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      description = {
        "The groups (or one): the Redis holder and term as the operator recorded them, the pods"
            + " with their roles and readiness, the leader Services' endpoints, the last"
            + " leadership changes; and the locks."
      })
  static final class Status implements Callable<Integer> {
    private final Session session;

    @Spec CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "GROUP", description = "One LeaderGroup.")
    String group;

    @Option(
        names = {"-A", "--all-namespaces"},
        description = "Every namespace the user may list.")
    boolean allNamespaces;

    @Option(
        names = {"-o", "--output"},
        paramLabel = "FORMAT",
        description = "json or yaml instead of text.")
    Format output;

    Status(Session session) {
      this.session = session;
    }

    @Override
    public Integer call() {
      if (allNamespaces && group != null) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "a GROUP names one group in one namespace: drop -A or GROUP");
      }
      String ns = allNamespaces ? null : session.namespace();
      return new StatusReport(session.client(), session.out).print(ns, group, output);
    }
  }

  /** The options of the levers that wait for the operator. */
  static class Waiting {
    @Option(names = "--no-wait", description = "Change, print, and return without waiting.")
    boolean noWait;

    @Option(
        names = "--timeout",
        paramLabel = "DURATION",
        defaultValue = "60s",
        converter = DurationConverter.class,
        description = "How long to wait for the operator (default ${DEFAULT-VALUE}).")
    Duration timeout;

    Levers levers(Session session) {
      return new Levers(session.client(), session.namespace(), session.out, !noWait, timeout);
    }
  }

  @Command(
      name = "switchover",
      mixinStandardHelpOptions = true,
      description = "Hand leadership to POD (default: the best ready follower), and wait for it.")
  static final class Switchover extends Waiting implements Callable<Integer> {
    private final Session session;

    @Parameters(paramLabel = "GROUP", description = "The LeaderGroup.")
    String group;

    @Option(names = "--to", paramLabel = "POD", description = "The pod to lead next.")
    String to;

    Switchover(Session session) {
      this.session = session;
    }

    @Override
    public Integer call() {
      return levers(session).switchover(group, to);
    }
  }

  @Command(
      name = "pause",
      mixinStandardHelpOptions = true,
      description = {
        "Freeze leadership (spec.paused: true): nobody is elected and no label moves; the"
            + " leader's lease is still renewed. Waits for the operator to see it."
      })
  static final class Pause extends Waiting implements Callable<Integer> {
    private final Session session;

    @Parameters(paramLabel = "GROUP", description = "The LeaderGroup.")
    String group;

    Pause(Session session) {
      this.session = session;
    }

    @Override
    public Integer call() {
      return levers(session).pause(group, true);
    }
  }

  @Command(
      name = "resume",
      mixinStandardHelpOptions = true,
      description = "Elect again (spec.paused: false), and wait for the operator to see it.")
  static final class Resume extends Waiting implements Callable<Integer> {
    private final Session session;

    @Parameters(paramLabel = "GROUP", description = "The LeaderGroup.")
    String group;

    Resume(Session session) {
      this.session = session;
    }

    @Override
    public Integer call() {
      return levers(session).pause(group, false);
    }
  }

  @Command(
      name = "release",
      mixinStandardHelpOptions = true,
      description = "Force-release a RedisLock, whoever holds it, and wait for the operator.")
  static final class Release extends Waiting implements Callable<Integer> {
    private final Session session;

    @Parameters(paramLabel = "LOCK", description = "The RedisLock.")
    String lock;

    Release(Session session) {
      this.session = session;
    }

    @Override
    public Integer call() {
      return levers(session).release(lock);
    }
  }

  /** Go-style durations (30s, 1m30s), as the CRDs take them. */
  static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String text) {
      try {
        return GoDuration.parse(text);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException("takes a duration such as 30s, got " + text);
      }
    }
  }
}

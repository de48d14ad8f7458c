package dev.baton.kubectl;

/**
 * The completion scripts. Each only asks {@code kubectl-baton __complete} (so commands, flags and
 * names never drift from the plugin) and keeps what it answers, up to its {@code :directive} line.
 */
final class CompletionScripts {

  private CompletionScripts() {}

  static String of(String shell) {
    return switch (shell) {
      case "bash" -> BASH;
      case "zsh" -> ZSH;
      case "kubectl" -> KUBECTL;
      default -> throw new IllegalArgumentException(shell);
    };
  }

  private static final String BASH =
      """
      # bash completion for kubectl-baton: source <(kubectl-baton completion bash)
      _kubectl_baton() {
          local cur="${COMP_WORDS[COMP_CWORD]}" out line directive=0
          local -a candidates=()
          out=$("${COMP_WORDS[0]}" __complete "${COMP_WORDS[@]:1:COMP_CWORD-1}" "$cur" 2>/dev/null) || return 0
          while IFS= read -r line; do
              case "$line" in
                  :*) directive=${line#:} ;;
                  *) candidates+=("${line%%$'\\t'*}") ;;
              esac
          done <<< "$out"
          COMPREPLY=()
          local c
          for c in "${candidates[@]}"; do
              [[ "$c" == "$cur"* ]] && COMPREPLY+=("$c")
          done
          if (( ${#COMPREPLY[@]} == 0 && (directive & 4) == 0 )); then
              COMPREPLY=($(compgen -f -- "$cur"))
          fi
          return 0
      }
      complete -F _kubectl_baton kubectl-baton
      """;

  private static final String ZSH =
      """
      #compdef kubectl-baton
      # zsh completion for kubectl-baton: source <(kubectl-baton completion zsh)
      _kubectl_baton() {
          local -a lines candidates
          local line directive=0
          lines=("${(@f)$(${words[1]} __complete "${(@)words[2,CURRENT-1]}" "${words[CURRENT]}" 2>/dev/null)}")
          for line in "${lines[@]}"; do
              case "$line" in
                  :*) directive=${line#:} ;;
                  *) candidates+=("${line%%$'\\t'*}") ;;
              esac
          done
          if (( ${#candidates[@]} > 0 )); then
              compadd -a candidates
          elif (( (directive & 4) == 0 )); then
              _files
          fi
      }
      if (( $+functions[compdef] )); then
          compdef _kubectl_baton kubectl-baton
      fi
      """;

  private static final String KUBECTL =
      """
      #!/bin/sh
      # kubectl_complete-baton: put it on PATH, executable, and kubectl (1.26 and later) completes
      # "kubectl baton ..." in its own completion by running it with __complete and the words.
      exec kubectl-baton "$@"
      """;
}

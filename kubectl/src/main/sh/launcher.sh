#!/bin/sh
# kubectl-baton: a shell line in front of the jar (a zip is read from its end). The JVM starts with
# C1 only and the serial collector, and maps a class archive of what a run loads, written by the
# first run into the user's cache and keyed by this file and the java binary: later runs start
# in about two thirds of the time, mapped where it was written (ArchiveRelocationMode=0: no pass
# over its pointers). -Xlog:disable keeps the JVM's own notes (an archive it cannot map) out of the
# output.
o="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData -Xshare:auto -Xlog:disable
 -XX:+UnlockDiagnosticVMOptions -XX:ArchiveRelocationMode=0"
d="${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-baton"
k=$(ls -lnL "$0" "$(command -v java)" 2>/dev/null | cksum | cut -d' ' -f1)
a="$d/$k.jsa"
if [ -f "$a" ]; then
  exec java $o -XX:SharedArchiveFile="$a" -jar "$0" "$@"
elif [ -z "$KUBECTL_BATON_NO_ARCHIVE" ] && mkdir -p "$d" 2>/dev/null && [ -w "$d" ]; then
  rm -f "$d"/*.jsa 2>/dev/null
  java $o -XX:ArchiveClassesAtExit="$a.$$" -jar "$0" "$@"
  s=$?
  [ -f "$a.$$" ] && mv -f "$a.$$" "$a" 2>/dev/null
  exit $s
fi
exec java $o -jar "$0" "$@"

#!/bin/sh
exec java -XX:TieredStopAtLevel=1 -Xshare:auto -jar "$0" "$@"

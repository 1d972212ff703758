#!/usr/bin/env bash
# The scale benchmark: generate N synthetic pages (internal/testkit/synth),
# index them in one process per mode — through the dedup filter (mark
# policy), with plain bleve and the same mapping, with bleve's default
# mapping; with -modes also under suppress and with --no-dedup — and record
# rate, memory and disk at every tenth of N; then score
# the clusters against the labels and time collapsed against plain search.
#
#   scripts/bench-scale.sh 20000                 # writes docs/scale-20000.{csv,svg,json,md}
#   scripts/bench-scale.sh 100000 -reps 2        # any flag of bench-scale after N (-h lists them)
#   scripts/bench-scale.sh 20000 -work /tmp/bs -keep -profile /tmp/bs/prof
#
# It runs under nice: the machine may be shared. A million pages take about
# half an hour on 2 cores and 16 GB of disk under -work (default: a
# temporary directory).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 1 ]; then
	echo "usage: scripts/bench-scale.sh N [bench-scale flags]" >&2
	exit 2
fi
n=$1
shift

bin_dir=$(mktemp -d)
trap 'rm -rf "$bin_dir"' EXIT
go build -o "$bin_dir/bench-scale" ./tools/bench-scale

# The commit measured; +dirty when sources (not docs/, where results go)
# differ from it.
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- ':(top)' ':(top,exclude)docs' 2>/dev/null)" ]; then
	commit="$commit+dirty"
fi

nice -n 5 "$bin_dir/bench-scale" -commit "$commit" -n "$n" "$@"

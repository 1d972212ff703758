#!/usr/bin/env bash
# Measures resuming after a crash: indexes INPUT once without interruption,
# then again into a new index with a kill -9 at SHARE of the first run's
# time followed by the same command, and compares the two indexes: every
# document's cluster id, every cluster's representative and members.
#
#   scripts/kill-resume.sh BIN INPUT [WORK] [SHARE]
#
# BIN is a built bleve-dedup, INPUT a corpus (e.g. one bench-scale
# -corpus-only wrote), WORK a directory for the indexes (default: a
# temporary one), SHARE the point of the kill (default 0.9). It prints the
# times and "same" or the differences, and exits 1 when they differ.
set -euo pipefail
bin=$1
input=$2
work=${3:-$(mktemp -d)}
share=${4:-0.9}
mkdir -p "$work"
flags=(--policy mark)

# state DIR: every cluster (those of one document too) with its id,
# representative and members, sorted.
state() {
	"$bin" dups --index "$1" --all --format jsonl | jq -c '{cluster, representative, members: (.members | sort)}' | sort
}

now() { date +%s.%N; }

rm -rf "$work/clean" "$work/killed"
t0=$(now)
"$bin" index --index "$work/clean" "${flags[@]}" "$input" >"$work/clean.log" 2>&1 || [ $? = 2 ]
t1=$(now)
full=$(echo "$t1 - $t0" | bc)
echo "uninterrupted: ${full}s ($(tail -1 "$work/clean.log"))"

"$bin" index --index "$work/killed" "${flags[@]}" "$input" >"$work/killed-1.log" 2>&1 &
pid=$!
sleep "$(echo "$full * $share" | bc)"
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
echo "killed -9 at ${share} of the uninterrupted run's time"
t2=$(now)
"$bin" index --index "$work/killed" "${flags[@]}" "$input" >"$work/killed-2.log" 2>&1 || [ $? = 2 ]
t3=$(now)
rerun=$(echo "$t3 - $t2" | bc)
echo "rerun: ${rerun}s = $(echo "scale=3; $rerun / $full" | bc) of the uninterrupted run ($(tail -1 "$work/killed-2.log"))"

state "$work/clean" >"$work/clean.state"
state "$work/killed" >"$work/killed.state"
if cmp -s "$work/clean.state" "$work/killed.state"; then
	echo "same: $(jq -s 'map(.members | length) | add' "$work/clean.state") documents in $(grep -c . "$work/clean.state") clusters, $(jq -s 'map(select(.members | length > 1)) | length' "$work/clean.state") of two or more: ids, representatives and members"
else
	echo "different:"
	diff "$work/clean.state" "$work/killed.state" | head -20
	exit 1
fi

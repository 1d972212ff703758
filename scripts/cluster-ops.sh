#!/usr/bin/env bash
# Runs a fleet of indexers sharing one store on a Redis Cluster while the
# cluster changes under them, and compares the clusters they make with an
# undisturbed run. It builds bleve-dedup once, makes a synthetic text
# corpus (tools/bench-scale -corpus-only), and for each scenario starts a
# fresh cluster of 3 masters and 3 replicas (scripts/redis-cluster.sh on
# PORT..PORT+5), deals the pages round-robin to NIDX indexers
# (`index --index RUN/shard-K --store redis://.../ops-SCENARIO --policy
# suppress`, no control groups) and runs them at once:
#
#   baseline  undisturbed (the reference the others are compared with)
#   again     undisturbed once more (how much two undisturbed runs differ)
#   reshard   DELAY s in: a 7th master (PORT+6) is started and added
#             (--cluster add-node), SLOTS slots are moved to it from all
#             masters (--cluster reshard), then moved back to one of them
#             and the node is removed (--cluster del-node)
#   failover  DELAY s in: CLUSTER FAILOVER sent to the replica of the
#             master serving the store's own slot ({NAME}:seq), then GAP s
#             later to the replica of another master
#
# Each indexer's stdout and stderr go to RUN/out-K.A.txt (A the attempt);
# an indexer that exits non-zero is run again with the same command (said
# on stdout) until it succeeds, TRIES attempts at most. At the end the
# clusters of the store are listed (`dups --index shard-0 ... --store URL
# --format jsonl`), compared with the baseline's as sets of member sets,
# and scored pairwise against the corpus' labels (precision, recall over
# the labelled pages; a page in no cluster of two or more is alone); the
# pages listed in two clusters are counted.
#
#   scripts/cluster-ops.sh
#   SCENARIOS="baseline failover" N=4000 scripts/cluster-ops.sh
#
# Settings (environment):
#   WORK       work directory (default /work/clusterops): the build, the corpus, runs/SCENARIO
#   N          pages of the corpus (default 20000)
#   DATA       shared data directory for bench-scale (default /work/shared/data)
#   NIDX       indexers (default 4)
#   PORT       first port of the cluster (default 7600; PORT+6 is the added master)
#   SCENARIOS  scenarios in order (default "baseline reshard failover"; baseline first)
#   DELAY      seconds after the indexers start before the cluster is changed (default 10)
#   SLOTS      slots moved to the added master (default 2000)
#   GAP        seconds between the two failovers (default 15)
#   TRIES      attempts of an indexer at most (default 5)
#   BIN        a bleve-dedup binary to run instead of building this tree (e.g. an older commit's)
set -euo pipefail
WORK=${WORK:-/work/clusterops}
N=${N:-20000}
DATA=${DATA:-/work/shared/data}
NIDX=${NIDX:-4}
PORT=${PORT:-7600}
SCENARIOS=${SCENARIOS:-baseline reshard failover}
DELAY=${DELAY:-10}
SLOTS=${SLOTS:-2000}
GAP=${GAP:-15}
TRIES=${TRIES:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${BIN:-$WORK/bin/bleve-dedup}
extra=$((PORT + 6))

mkdir -p "$WORK/bin" "$WORK/runs"
[ -n "${BIN:-}" ] || (cd "$root" && go build -o "$bin" ./cmd/bleve-dedup)
(cd "$root" && go run ./tools/bench-scale -corpus-only -n "$N" -work "$WORK/corpus" -data "$DATA" >"$WORK/corpus.log" 2>&1) || {
	cat "$WORK/corpus.log" >&2
	exit 1
}
pages=$(sed -n 's/^pages //p' "$WORK/corpus.log")
labels=$(sed -n 's/^labels //p' "$WORK/corpus.log")
echo "commit $(git -C "$root" rev-parse --short HEAD), $(nproc) cores, corpus $pages ($(wc -l <"$pages") pages)"

# The cluster of the scenario under way, stopped at exit with whatever
# this script started.
rdir=""
bgpids=()
cleanup() {
	for p in "${bgpids[@]}"; do kill "$p" 2>/dev/null || true; done
	redis-cli -p "$extra" shutdown nosave >/dev/null 2>&1 || true
	if [ -n "$rdir" ]; then PORT=$PORT "$root/scripts/redis-cluster.sh" stop "$rdir" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

ts() { date +%H:%M:%S.%N | cut -c1-12; }
rc() { redis-cli -p "$1" "${@:2}"; }
# master_of KEY: the port of the master serving KEY.
master_of() {
	local slot
	slot=$(rc "$PORT" cluster keyslot "$1")
	rc "$PORT" cluster nodes | awk -v s="$slot" '$3 ~ /master/ && $3 !~ /fail/ {
		for (i = 9; i <= NF; i++) { n = split($i, r, "-"); lo = r[1]; hi = (n == 2 ? r[2] : r[1]);
			if (s >= lo && s <= hi) { split($2, a, "[:@]"); print a[2]; exit } } }'
}
# replica_of PORT: the port of a replica of the master on PORT.
replica_of() {
	local id
	id=$(rc "$1" cluster myid)
	rc "$PORT" cluster nodes | awk -v id="$id" '$4 == id && $3 ~ /slave/ && $3 !~ /fail/ { split($2, a, "[:@]"); print a[2]; exit }'
}
# agreed: every node agrees on the slots, none is open (migrating).
agreed() {
	local i
	for i in $(seq 60); do
		if rc "$PORT" --cluster check "127.0.0.1:$PORT" >"$1" 2>&1 && ! grep -qE '\[(WARNING|ERR)\]' "$1"; then return 0; fi
		sleep 0.5
	done
	return 1
}

# The changes of each scenario, run in the background; log on $ops.
change_reshard() {
	local log=$1 dir=$2 newid m0 ok=ok
	sleep "$DELAY"
	mkdir -p "$dir/$extra"
	sed "s/$PORT/$extra/g" "$dir/$PORT/redis.conf" >"$dir/$extra/redis.conf"
	echo "$(ts) start master $extra" >>"$log"
	redis-server "$dir/$extra/redis.conf"
	for _ in $(seq 50); do rc "$extra" ping >/dev/null 2>&1 && break; sleep 0.1; done
	echo "$(ts) add-node 127.0.0.1:$extra" >>"$log"
	rc "$PORT" --cluster add-node "127.0.0.1:$extra" "127.0.0.1:$PORT" >>"$dir/ops-add.log" 2>&1 || ok="add-node failed"
	newid=$(rc "$extra" cluster myid)
	# Known to every node (the gossip takes a moment), then agreed.
	for _ in $(seq 100); do
		local all=1 p
		for p in $(seq "$PORT" $((PORT + 5))); do
			rc "$p" cluster nodes | grep -q "^$newid .*master" || all=0
		done
		[ "$all" = 1 ] && break
		sleep 0.2
	done
	agreed "$dir/ops-check1.log" || ok="no agreement after add-node"
	echo "$(ts) reshard $SLOTS slots from all to $extra ($newid): $ok" >>"$log"
	rc "$PORT" --cluster reshard "127.0.0.1:$PORT" --cluster-from all --cluster-to "$newid" \
		--cluster-slots "$SLOTS" --cluster-yes >"$dir/ops-reshard1.log" 2>&1 || ok="reshard to $extra failed"
	echo "$(ts) reshard done: $ok; $(rc "$extra" dbsize) keys on $extra" >>"$log"
	agreed "$dir/ops-check2.log" || ok="no agreement after reshard"
	sleep 5
	m0=$(rc "$PORT" cluster nodes | awk -v me="$newid" '$3 ~ /master/ && $1 != me && $9 != "" {print $1; exit}')
	echo "$(ts) reshard $SLOTS slots back from $extra to $m0" >>"$log"
	rc "$PORT" --cluster reshard "127.0.0.1:$PORT" --cluster-from "$newid" --cluster-to "$m0" \
		--cluster-slots "$SLOTS" --cluster-yes >"$dir/ops-reshard2.log" 2>&1 || ok="reshard back failed"
	agreed "$dir/ops-check3.log" || ok="no agreement after reshard back"
	echo "$(ts) reshard back done: $ok; del-node $newid" >>"$log"
	rc "$PORT" --cluster del-node "127.0.0.1:$PORT" "$newid" >"$dir/ops-del.log" 2>&1 || ok="del-node failed"
	agreed "$dir/ops-check4.log" || ok="no agreement after del-node"
	echo "$(ts) done: $ok" >>"$log"
}
failover_of() { # failover_of MASTERPORT LOG
	local r
	r=$(replica_of "$1")
	echo "$(ts) CLUSTER FAILOVER to $r (replica of $1)" >>"$2"
	echo "$(ts) $(rc "$r" cluster failover 2>&1)" >>"$2"
	for _ in $(seq 100); do
		rc "$r" role 2>/dev/null | head -1 | grep -q master && break
		sleep 0.1
	done
	echo "$(ts) $r is $(rc "$r" role | head -1), $1 is $(rc "$1" role | head -1)" >>"$2"
}
change_failover() {
	local log=$1 prefix=$3 m1 m2
	sleep "$DELAY"
	m1=$(master_of "{$prefix}:seq")
	failover_of "$m1" "$log"
	agreed "$2/ops-check1.log" || echo "$(ts) no agreement after failover" >>"$log"
	sleep "$GAP"
	m2=$(rc "$PORT" cluster nodes | awk -v skip="$m1" '$3 ~ /master/ && $3 !~ /fail/ { split($2, a, "[:@]"); if (a[2] != skip && $9 != "") { print a[2]; exit } }')
	failover_of "$m2" "$log"
	agreed "$2/ops-check2.log" || echo "$(ts) no agreement after failover" >>"$log"
	echo "$(ts) done" >>"$log"
}

# run_indexer K RUN URL: runs indexer K until it succeeds, TRIES times at
# most; writes RUN/result-K: "attempts codes seconds".
run_indexer() {
	local k=$1 run=$2 url=$3 a code codes="" t0 t1
	t0=$(date +%s.%N)
	for a in $(seq "$TRIES"); do
		code=0
		"$bin" index --index "$run/shard-$k" --store "$url" --policy suppress "$run/part-$k.jsonl" \
			>"$run/out-$k.$a.txt" 2>&1 || code=$?
		codes="$codes${codes:+,}$code"
		[ "$code" = 0 ] && break
		echo "$(ts) indexer $k: attempt $a exited $code: $(grep -v '^$' "$run/out-$k.$a.txt" | tail -1 | cut -c1-200)"
		[ "$a" -lt "$TRIES" ] && echo "$(ts) indexer $k: running it again (attempt $((a + 1)))"
	done
	t1=$(date +%s.%N)
	echo "$a $codes $(echo "$t1 - $t0" | bc)" >"$run/result-$k"
}

# partition FILE: the clusters of a dups jsonl as sorted member lists, sorted.
partition() { jq -r '.members | sort | join(" ")' "$1" | sort; }
# score PARTITION: pairwise precision and recall against the labels.
score() {
	awk 'NR == FNR { split($0, a, "\""); gold[a[4]] = a[8]; next }
	{ for (i = 1; i <= NF; i++) if ($i in gold) pred[$i] = "c" FNR }
	END {
		for (id in gold) { p = (id in pred) ? pred[id] : "s" id; np[p]++; ng[gold[id]]++; npg[p SUBSEP gold[id]]++ }
		for (k in np) pp += np[k] * (np[k] - 1) / 2
		for (k in ng) gp += ng[k] * (ng[k] - 1) / 2
		for (k in npg) tp += npg[k] * (npg[k] - 1) / 2
		P = pp ? tp / pp : 1; R = gp ? tp / gp : 1
		printf "P %.4f R %.4f F1 %.4f (pairs: %d predicted, %d labelled, %d both)\n", P, R, (P + R) ? 2 * P * R / (P + R) : 0, pp, gp, tp
	}' "$labels" "$1"
}

for sc in $SCENARIOS; do
	run=$WORK/runs/$sc
	rm -rf "$run" && mkdir -p "$run"
	prefix=ops-$sc
	rdir=$WORK/redis-$sc
	PORT=$PORT "$root/scripts/redis-cluster.sh" stop "$rdir" >/dev/null 2>&1 || true
	addrs=$(PORT=$PORT "$root/scripts/redis-cluster.sh" start "$rdir")
	url="redis://$addrs/$prefix"
	awk -v n="$NIDX" -v dir="$run" '{print > (dir "/part-" (NR - 1) % n ".jsonl")}' "$pages"
	echo
	echo "== $sc: $NIDX indexers, store $url, load $(cut -d' ' -f1-3 /proc/loadavg)"
	ops=$run/ops.log
	: >"$ops"
	start=$(date +%s.%N)
	ipids=()
	for k in $(seq 0 $((NIDX - 1))); do
		run_indexer "$k" "$run" "$url" &
		ipids+=($!)
	done
	bgpids=("${ipids[@]}")
	opid=""
	case "$sc" in
	baseline | again) ;;
	reshard) change_reshard "$ops" "$rdir" & opid=$! ;;
	failover) change_failover "$ops" "$rdir" "$prefix" & opid=$! ;;
	*) echo "cluster-ops.sh: scenario $sc: want baseline, again, reshard or failover" >&2 && exit 2 ;;
	esac
	[ -z "$opid" ] || bgpids+=("$opid")
	for p in "${ipids[@]}"; do wait "$p" || true; done
	end=$(date +%s.%N)
	[ -z "$opid" ] || wait "$opid" || echo "the cluster's changes exited non-zero"
	bgpids=()
	echo "indexers done in $(echo "$end - $start" | bc | cut -c1-6) s, load $(cut -d' ' -f1-3 /proc/loadavg)"
	[ ! -s "$ops" ] || sed 's/^/  ops: /' "$ops"
	printf '  %-8s %-8s %-8s %8s  %s\n' indexer attempts "exits" seconds summary
	for k in $(seq 0 $((NIDX - 1))); do
		read -r a codes secs <"$run/result-$k"
		summary=$(grep -E '^read [0-9]+' "$run/out-$k.$a.txt" | tail -1 || true)
		printf '  %-8s %-8s %-8s %8.1f  %s\n' "$k" "$a" "$codes" "$secs" "${summary:-(no summary)}"
		for f in "$run"/out-"$k".*.txt; do
			grep -viE '^(read [0-9]+|$)' "$f" | grep -vE 'bleve-dedup: indexing: ' | head -5 | sed "s|^|    $(basename "$f"): |" || true
		done
	done
	shards=()
	for k in $(seq 0 $((NIDX - 1))); do shards+=(--index "$run/shard-$k"); done
	if ! "$bin" dups "${shards[@]}" --store "$url" --format jsonl >"$run/clusters.jsonl" 2>"$run/dups.err"; then
		echo "  dups over the shards failed: $(tail -1 "$run/dups.err"); the store alone:"
		"$bin" dups --store "$url" --format jsonl >"$run/clusters.jsonl" 2>>"$run/dups.err"
	fi
	[ ! -s "$run/dups.err" ] || sed 's/^/  dups: /' "$run/dups.err"
	partition "$run/clusters.jsonl" >"$run/partition.txt"
	echo "  clusters of two or more: $(wc -l <"$run/partition.txt"), members $(wc -w <"$run/partition.txt"); $(score "$run/partition.txt")"
	echo "  pages listed in two or more clusters: $(tr ' ' '\n' <"$run/partition.txt" | sort | uniq -d | wc -l)"
	if [ "$sc" != baseline ] && [ -f "$WORK/runs/baseline/partition.txt" ]; then
		if cmp -s "$WORK/runs/baseline/partition.txt" "$run/partition.txt"; then
			echo "  clusters EQUAL to the baseline's (same member sets)"
		else
			b=$(comm -23 "$WORK/runs/baseline/partition.txt" "$run/partition.txt")
			h=$(comm -13 "$WORK/runs/baseline/partition.txt" "$run/partition.txt")
			echo "  clusters DIFFER from the baseline's: $(echo "$b" | grep -c .) member sets ($(echo "$b" | wc -w) pages) only in the baseline, $(echo "$h" | grep -c .) ($(echo "$h" | wc -w) pages) only here"
		fi
	fi
	for p in $(seq "$PORT" "$extra"); do
		[ -f "$rdir/$p/redis.log" ] && cp "$rdir/$p/redis.log" "$run/redis-$p.log"
	done
	cp "$rdir"/ops-*.log "$run/" 2>/dev/null || true
	redis-cli -p "$extra" shutdown nosave >/dev/null 2>&1 || true
	PORT=$PORT "$root/scripts/redis-cluster.sh" stop "$rdir" >/dev/null 2>&1 || true
	rdir=""
	rm -rf "$run"/part-*.jsonl
done

#!/usr/bin/env bash
# Emulates a fleet of small machines on one: N `bleve-dedup index`
# processes sharing one store on a Redis Cluster, each in its own control
# group limited to a share of a core (an eighth by default), the cluster
# outside them. For each design (the lease of commit BASE, and this tree),
# each N and each repetition, it deals the first N*PER pages of a text
# corpus round-robin to the N indexers, runs them at once and reports the
# aggregate pages/s and decisions/s (pages the filter decided: indexed or
# duplicates), the indexers' CPU against their quota, the Redis servers'
# CPU seconds (all nodes) and the busiest master's (one core each: the
# fleet's rate over that master's share of a second is where Redis
# becomes the limit). An indexer that exits non-zero fails the row. Run
# as root.
#
#   REDIS=127.0.0.1:7400,127.0.0.1:7401,127.0.0.1:7402 PAGES=pages.jsonl scripts/fleet.sh
#
# Settings (environment):
#   REDIS    seed addresses of the cluster (required); its nodes' CPU is read from /proc
#   PAGES    text pages, JSONL ({"id","url","title","text"}; go run ./tools/bench-scale -corpus-only)
#   NS       numbers of indexers (default "1 2 4 8")
#   PER      pages per indexer (default 2500)
#   QUOTA    each indexer's CPU per PERIOD, µs (default 12500: an eighth of a core)
#   PERIOD   the scheduler's period, µs (default 100000)
#   DESIGNS  "lease new" (default): BASE's build and this tree's
#   BASE     the commit of the lease design (default 43b90ad, the last with the lease)
#   REPS     repetitions (default 1)
#   WORK     work directory (default /tmp/bleve-dedup-fleet; the builds stay there)
set -euo pipefail
: "${REDIS:?name the Redis Cluster: REDIS=HOST:PORT,...}"
: "${PAGES:?name the pages: PAGES=pages.jsonl}"
NS=${NS:-1 2 4 8}
PER=${PER:-2500}
QUOTA=${QUOTA:-12500}
PERIOD=${PERIOD:-100000}
DESIGNS=${DESIGNS:-lease new}
REPS=${REPS:-1}
WORK=${WORK:-/tmp/bleve-dedup-fleet}
root=$(cd "$(dirname "$0")/.." && pwd)
BASE=${BASE:-43b90ad}
mkdir -p "$WORK/bin"

# The builds: this tree, and BASE from git.
build() {
	case "$1" in
	new) (cd "$root" && go build -o "$WORK/bin/bleve-dedup-new" ./cmd/bleve-dedup) ;;
	lease)
		rm -rf "$WORK/lease-src" && mkdir -p "$WORK/lease-src"
		git -C "$root" archive "$BASE" | tar -x -C "$WORK/lease-src"
		(cd "$WORK/lease-src" && go build -o "$WORK/bin/bleve-dedup-lease" ./cmd/bleve-dedup)
		;;
	*) echo "fleet.sh: design $1: want lease or new" >&2 && exit 2 ;;
	esac
}
for d in $DESIGNS; do build "$d"; done

# Control groups: v1 (cpu and cpuacct hierarchies) or v2 (cpu.max).
if [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
	cgv=1
else
	cgv=2
	grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control || echo +cpu >/sys/fs/cgroup/cgroup.subtree_control
fi
cg_make() { # cg_make NAME
	if [ $cgv = 1 ]; then
		mkdir -p "/sys/fs/cgroup/cpu/$1" "/sys/fs/cgroup/cpuacct/$1"
		echo "$PERIOD" >"/sys/fs/cgroup/cpu/$1/cpu.cfs_period_us"
		echo "$QUOTA" >"/sys/fs/cgroup/cpu/$1/cpu.cfs_quota_us"
		echo 0 >"/sys/fs/cgroup/cpuacct/$1/cpuacct.usage"
	else
		mkdir -p "/sys/fs/cgroup/$1"
		echo "$QUOTA $PERIOD" >"/sys/fs/cgroup/$1/cpu.max"
	fi
}
cg_enter() { # cg_enter NAME PID
	if [ $cgv = 1 ]; then
		echo "$2" >"/sys/fs/cgroup/cpu/$1/cgroup.procs"
		echo "$2" >"/sys/fs/cgroup/cpuacct/$1/cgroup.procs"
	else
		echo "$2" >"/sys/fs/cgroup/$1/cgroup.procs"
	fi
}
cg_cpu() { # cg_cpu NAME: CPU seconds used
	if [ $cgv = 1 ]; then
		awk '{printf "%.2f", $1 / 1e9}' "/sys/fs/cgroup/cpuacct/$1/cpuacct.usage"
	else
		awk '$1 == "usage_usec" {printf "%.2f", $2 / 1e6}' "/sys/fs/cgroup/$1/cpu.stat"
	fi
}
cg_remove() {
	if [ $cgv = 1 ]; then
		rmdir "/sys/fs/cgroup/cpu/$1" "/sys/fs/cgroup/cpuacct/$1" 2>/dev/null || true
	else
		rmdir "/sys/fs/cgroup/$1" 2>/dev/null || true
	fi
}

# The cluster's nodes (masters and replicas): their ports and processes.
seed=${REDIS%%,*}
nodes=$(redis-cli -h "${seed%:*}" -p "${seed#*:}" cluster nodes | awk '{split($2, a, "@"); print a[1]}')
masters=$(redis-cli -h "${seed%:*}" -p "${seed#*:}" cluster nodes | awk '$3 ~ /master/ {split($2, a, "@"); print a[1]}')
pids=""
for n in $nodes; do
	pids="$pids $(redis-cli -h "${n%:*}" -p "${n#*:}" info server | awk -F: '/^process_id/ {print $2}' | tr -d '\r')"
done
mpids=""
for n in $masters; do
	mpids="$mpids $(redis-cli -h "${n%:*}" -p "${n#*:}" info server | awk -F: '/^process_id/ {print $2}' | tr -d '\r')"
done
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
redis_cpu() { # the cluster's CPU seconds so far
	local t=0
	for p in $pids; do
		t=$((t + $(ticks "$p")))
	done
	echo "scale=2; $t / $(getconf CLK_TCK)" | bc
}
master_ticks() { # each master's CPU ticks so far, in the order of $mpids
	for p in $mpids; do ticks "$p"; done | tr '\n' ' '
}
busiest() { # busiest BEFORE AFTER: the largest master's CPU seconds between them
	local -a a=($1) b=($2)
	local m=0 i d
	for i in "${!a[@]}"; do
		d=$((b[i] - a[i]))
		[ $d -gt $m ] && m=$d
	done
	echo "scale=2; $m / $(getconf CLK_TCK)" | bc
}
drop() { # drop PREFIX: delete a run's keys, one UNLINK a key (a node's keys span slots: CROSSSLOT)
	for m in $masters; do
		for pat in "$1:*" "{$1}:*"; do
			redis-cli -h "${m%:*}" -p "${m#*:}" --scan --pattern "$pat" | sed "s/^/UNLINK /" | redis-cli -h "${m%:*}" -p "${m#*:}" >/dev/null
		done
	done
}

printf '%-6s %2s %3s %7s %7s %8s %9s %9s %8s %7s %8s %7s  %s\n' design N rep pages seconds pages/s decisions/s "vs N=1" "cpu/quota" redis-s master-s load status
for d in $DESIGNS; do
	for rep in $(seq "$REPS"); do
		base_rate=""
		for n in $NS; do
			run="$WORK/run-$d-$n-$rep"
			rm -rf "$run" && mkdir -p "$run"
			head -n $((n * PER)) "$PAGES" | awk -v n="$n" -v dir="$run" '{print > (dir "/part-" (NR - 1) % n ".jsonl")}'
			prefix="fleet-$d-$n-$rep-$$"
			r0=$(redis_cpu)
			m0=$(master_ticks)
			start=$(date +%s.%N)
			ipids=()
			for k in $(seq 0 $((n - 1))); do
				cg_make "fleet-$k"
				(
					cg_enter "fleet-$k" "$BASHPID"
					exec "$WORK/bin/bleve-dedup-$d" index --index "$run/shard-$k" --policy suppress \
						--store "redis://$REDIS/$prefix" "$run/part-$k.jsonl"
				) >"$run/out-$k.txt" 2>&1 &
				ipids+=($!)
			done
			status=ok
			for k in "${!ipids[@]}"; do
				if ! wait "${ipids[$k]}"; then
					status="failed: indexer $k: $(tail -1 "$run/out-$k.txt" | cut -c1-120)"
				fi
			done
			end=$(date +%s.%N)
			r1=$(redis_cpu)
			m1=$(master_ticks)
			read_pages=0
			decided=0
			used=0
			for k in $(seq 0 $((n - 1))); do
				line=$(grep -E '^read [0-9]+' "$run/out-$k.txt" | tail -1 || true)
				if [ -z "$line" ] && [ "$status" = ok ]; then
					status="failed: indexer $k: no summary"
				fi
				r=$(echo "$line" | sed -nE 's/^read ([0-9]+)[ ,].*/\1/p')
				i=$(echo "$line" | sed -nE 's/.*indexed ([0-9]+)[ ,].*/\1/p')
				u=$(echo "$line" | sed -nE 's/.*duplicates ([0-9]+)[ ,].*/\1/p')
				read_pages=$((read_pages + ${r:-0}))
				decided=$((decided + ${i:-0} + ${u:-0}))
				used=$(echo "$used + $(cg_cpu "fleet-$k")" | bc)
				cg_remove "fleet-$k"
			done
			secs=$(echo "$end - $start" | bc)
			rate=$(echo "scale=1; $read_pages / $secs" | bc)
			drate=$(echo "scale=1; $decided / $secs" | bc)
			[ -n "$base_rate" ] || base_rate=$rate
			scale=$(echo "scale=2; $rate / $base_rate" | bc)
			quota=$(echo "scale=2; $used / ($n * $QUOTA / $PERIOD * $secs)" | bc)
			load=$(cut -d' ' -f1 /proc/loadavg)
			printf '%-6s %2d %3d %7d %7.1f %8.1f %11.1f %9s %8s %7s %8s %7s  %s\n' "$d" "$n" "$rep" "$read_pages" "$secs" "$rate" "$drate" \
				"$scale" "$quota" "$(echo "$r1 - $r0" | bc)" "$(busiest "$m0" "$m1")" "$load" "$status"
			drop "$prefix"
			rm -rf "$run"
		done
	done
done

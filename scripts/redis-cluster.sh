#!/usr/bin/env bash
# Starts or stops a Redis Cluster of 3 masters and 3 replicas on loopback,
# for the tests of the shared store (dedupfilter's Redis store) and for
# trying the distributed setup by hand.
#
#   scripts/redis-cluster.sh start [DIR]   # prints the addresses, e.g. 127.0.0.1:7100,...
#   scripts/redis-cluster.sh stop [DIR]
#
# DIR (default /tmp/bleve-dedup-redis) holds each node's config, data and
# log. PORT (default 7100) is the first of six ports. Persistence is on
# (appendonly) and maxmemory-policy is noeviction: a store that drops keys
# under memory pressure would forget documents (see docs/distributed.md).
set -euo pipefail
cmd=${1:-}
dir=${2:-/tmp/bleve-dedup-redis}
port=${PORT:-7100}
ports=$(seq "$port" $((port + 5)))

case "$cmd" in
start)
	command -v redis-server >/dev/null && command -v redis-cli >/dev/null || {
		echo "redis-cluster.sh: redis-server and redis-cli are needed (Debian: apt-get install redis-server redis-tools)" >&2
		exit 1
	}
	mkdir -p "$dir"
	addrs=()
	for p in $ports; do
		mkdir -p "$dir/$p"
		cat >"$dir/$p/redis.conf" <<CONF
port $p
bind 127.0.0.1
protected-mode yes
cluster-enabled yes
cluster-config-file nodes.conf
cluster-node-timeout 3000
appendonly yes
maxmemory-policy noeviction
dir $dir/$p
logfile $dir/$p/redis.log
daemonize yes
pidfile $dir/$p/redis.pid
CONF
		redis-server "$dir/$p/redis.conf"
		addrs+=("127.0.0.1:$p")
	done
	for p in $ports; do
		for _ in $(seq 50); do
			redis-cli -p "$p" ping >/dev/null 2>&1 && break
			sleep 0.1
		done
	done
	if ! redis-cli -p "$port" cluster info 2>/dev/null | grep -q 'cluster_state:ok'; then
		redis-cli --cluster create "${addrs[@]}" --cluster-replicas 1 --cluster-yes >"$dir/create.log" 2>&1
	fi
	# Up when every node sees the cluster ok and the replicas attached.
	for _ in $(seq 150); do
		ok=1
		for p in $ports; do
			redis-cli -p "$p" cluster info 2>/dev/null | grep -q 'cluster_state:ok' || ok=0
		done
		[ "$(redis-cli -p "$port" cluster nodes 2>/dev/null | grep -c slave)" = 3 ] || ok=0
		[ "$ok" = 1 ] && break
		sleep 0.2
	done
	[ "$ok" = 1 ] || { echo "redis-cluster.sh: the cluster did not come up; see $dir" >&2; exit 1; }
	(IFS=,; echo "${addrs[*]}")
	;;
stop)
	for p in $ports; do
		redis-cli -p "$p" shutdown nosave >/dev/null 2>&1 || true
	done
	rm -rf "$dir"
	;;
*)
	echo "usage: $0 start|stop [DIR]" >&2
	exit 2
	;;
esac

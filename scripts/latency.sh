#!/usr/bin/env bash
# Puts network latency between the clients of a Redis Cluster started by
# scripts/redis-cluster.sh and its nodes, as between machines: a
# Toxiproxy (github.com/Shopify/toxiproxy, built with `go install` into
# DIR) runs one proxy a node, each with a `latency` toxic upstream and
# one downstream, and every node announces its proxy's port, so that the
# slot map (CLUSTER SLOTS, CLUSTER NODES) and the MOVED and ASK redirects
# name the proxies and every client command goes through them. The
# cluster bus stays direct (each node announces its real bus port). A
# replica follows its master's announced address, so replication (and
# the replicas' acknowledgements that WAIT counts) goes through the
# proxies as well.
#
#   scripts/latency.sh start DIR   # prints the proxies' addresses, e.g. 127.0.0.1:7200,...
#   scripts/latency.sh stop DIR    # the nodes announce their own ports again; Toxiproxy stops
#
# DIR is the cluster's directory (as given to redis-cluster.sh); the build,
# log and pid of Toxiproxy go in DIR/toxiproxy.
#
# Settings (environment):
#   PORT       the cluster's first port, as for redis-cluster.sh (default 7100);
#              node PORT+i gets the proxy 127.0.0.1:PORT+100+i
#   LATENCY    delay each way, ms (default 1: a round trip of about 2 ms)
#   JITTER     random variation of each delay, ± ms (default 0)
#   API        port of Toxiproxy's HTTP API (default PORT+110)
#   TOXIPROXY  the version to build (default v2.5.0)
set -euo pipefail
cmd=${1:-}
dir=${2:-/tmp/bleve-dedup-redis}
port=${PORT:-7100}
latency=${LATENCY:-1}
jitter=${JITTER:-0}
api=${API:-$((port + 110))}
version=${TOXIPROXY:-v2.5.0}
tp="$dir/toxiproxy"
url="http://127.0.0.1:$api"

# The slot map and the replication links name the proxies (or, after
# stop, the nodes) everywhere: wait for it.
settle() { # settle FIRST_ANNOUNCED_PORT
	local want=$1 ok p i
	for _ in $(seq 150); do
		ok=1
		for i in $(seq 0 5); do
			p=$((port + i))
			# Every node's view of every node names the wanted ports.
			redis-cli -p "$p" cluster nodes 2>/dev/null | awk -v lo="$want" -v hi=$((want + 5)) '
				{ split($2, a, "[:@]"); if (a[2] < lo || a[2] > hi) bad = 1; n++ }
				END { exit (bad || n != 6) }' || ok=0
			redis-cli -p "$p" cluster info 2>/dev/null | grep -q 'cluster_state:ok' || ok=0
			if redis-cli -p "$p" role 2>/dev/null | head -1 | grep -q slave; then
				redis-cli -p "$p" info replication 2>/dev/null | tr -d '\r' | awk -F: -v lo="$want" -v hi=$((want + 5)) '
					$1 == "master_port" && ($2 < lo || $2 > hi) { bad = 1 }
					$1 == "master_link_status" && $2 != "up" { bad = 1 }
					END { exit bad }' || ok=0
			fi
		done
		[ "$ok" = 1 ] && return 0
		sleep 0.2
	done
	echo "latency.sh: the cluster did not settle on ports $want-$((want + 5)); see $dir" >&2
	return 1
}

case "$cmd" in
start)
	command -v curl >/dev/null && command -v redis-cli >/dev/null && command -v go >/dev/null || {
		echo "latency.sh: curl, redis-cli and go are needed" >&2
		exit 1
	}
	for i in $(seq 0 5); do
		redis-cli -p $((port + i)) ping >/dev/null 2>&1 || {
			echo "latency.sh: no Redis node at 127.0.0.1:$((port + i)); start one with PORT=$port scripts/redis-cluster.sh start $dir" >&2
			exit 1
		}
	done
	mkdir -p "$tp"
	if [ ! -x "$tp/bin/server" ]; then
		# Outside any module, so that nothing of the caller's go.mod is touched.
		(cd "$tp" && GOBIN="$tp/bin" GOFLAGS=-buildvcs=false go install "github.com/Shopify/toxiproxy/v2/cmd/server@$version")
	fi
	if ! { [ -f "$tp/pid" ] && kill -0 "$(cat "$tp/pid")" 2>/dev/null; }; then
		"$tp/bin/server" -host 127.0.0.1 -port "$api" >"$tp/log" 2>&1 &
		echo $! >"$tp/pid"
		for _ in $(seq 50); do
			curl -fs "$url/version" >/dev/null 2>&1 && break
			sleep 0.1
		done
		curl -fs "$url/version" >/dev/null || { echo "latency.sh: Toxiproxy did not start; see $tp/log" >&2; exit 1; }
	fi
	addrs=()
	for i in $(seq 0 5); do
		p=$((port + i))
		proxy=$((port + 100 + i))
		name="redis-$p"
		curl -fs -X DELETE "$url/proxies/$name" >/dev/null 2>&1 || true
		curl -fsS -X POST "$url/proxies" -d "{\"name\":\"$name\",\"listen\":\"127.0.0.1:$proxy\",\"upstream\":\"127.0.0.1:$p\",\"enabled\":true}" >/dev/null
		for stream in upstream downstream; do
			curl -fsS -X POST "$url/proxies/$name/toxics" -d "{\"name\":\"latency_$stream\",\"type\":\"latency\",\"stream\":\"$stream\",\"toxicity\":1.0,\"attributes\":{\"latency\":$latency,\"jitter\":$jitter}}" >/dev/null
		done
		addrs+=("127.0.0.1:$proxy")
	done
	# The bus port first, so that the cluster bus never moves to a proxy.
	for i in $(seq 0 5); do
		p=$((port + i))
		redis-cli -p "$p" config set cluster-announce-bus-port $((p + 10000)) >/dev/null
		redis-cli -p "$p" config set cluster-announce-ip 127.0.0.1 >/dev/null
		redis-cli -p "$p" config set cluster-announce-port $((port + 100 + i)) >/dev/null
	done
	settle $((port + 100))
	(IFS=,; echo "${addrs[*]}")
	;;
stop)
	for i in $(seq 0 5); do
		p=$((port + i))
		redis-cli -p "$p" config set cluster-announce-port 0 >/dev/null 2>&1 || true
		redis-cli -p "$p" config set cluster-announce-bus-port 0 >/dev/null 2>&1 || true
		redis-cli -p "$p" config set cluster-announce-ip "" >/dev/null 2>&1 || true
	done
	# Only if the nodes are still there: redis-cluster.sh stop may have gone first.
	if redis-cli -p "$port" ping >/dev/null 2>&1; then
		settle "$port"
	fi
	if [ -f "$tp/pid" ]; then
		kill "$(cat "$tp/pid")" 2>/dev/null || true
		rm -f "$tp/pid"
	fi
	;;
*)
	echo "usage: $0 start|stop DIR" >&2
	exit 2
	;;
esac

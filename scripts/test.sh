#!/usr/bin/env bash
# The project's test command (README): vet, every package's tests, the race
# detector over the concurrent packages, and a bounded run of each fuzz target.
# Tests that need ../shared/data skip with a message when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."

# An execution count, not a duration: a duration races the fuzz coordinator's
# own deadline and fails with a bare "context deadline exceeded" on a loaded
# machine (golang/go#75804) although nothing was found.
FUZZTIME=${FUZZTIME:-3000x}

# The server's browser test drives Debian's headless Chromium; install it
# when missing (it skips with a message where it cannot be installed).
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null || echo "warning: chromium could not be installed; browser tests will skip"
fi

# The shared store's tests run on a Redis Cluster of 3 masters and 3
# replicas on loopback, started here (installed from Debian when missing)
# and stopped at exit; where none can start they skip with a message.
if ! command -v redis-server >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server redis-tools >/dev/null || echo "warning: redis-server could not be installed; the Redis tests will skip"
fi
redis_dir=$(mktemp -d)
trap 'PORT=${REDIS_PORT:-7300} scripts/redis-cluster.sh stop "$redis_dir" >/dev/null 2>&1 || true' EXIT
if addrs=$(PORT=${REDIS_PORT:-7300} scripts/redis-cluster.sh start "$redis_dir"); then
	export DEDUPFILTER_REDIS=$addrs
else
	echo "warning: no Redis Cluster; the Redis tests will skip"
fi

go vet ./...
go test -count=1 ./...
# (TestBatchDecidesAsOneByOne is sequential and takes minutes under -race.)
go test -count=1 -race -skip TestBatchDecidesAsOneByOne ./dedupfilter/ ./indexer/ ./store/...
# The filter's whole suite once more, on the embedded store (the run above
# used Redis where a cluster is up).
if [ -n "${DEDUPFILTER_REDIS:-}" ]; then
	DEDUPFILTER_REDIS= go test -count=1 ./dedupfilter/
fi
# The collapse race test is TestSearchCollapsedAfterWrites; -short skips
# indexing the development set, which says nothing about races.
go test -count=1 -race -short ./collapse/

for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" "$pkg"
	done
done

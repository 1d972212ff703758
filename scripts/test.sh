#!/usr/bin/env bash
# The project's test command (README): vet, every package's tests, the race
# detector over the concurrent packages, and a bounded run of each fuzz target.
# Tests that need ../shared/data skip with a message when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZTIME=${FUZZTIME:-5s}

go vet ./...
go test -count=1 ./...
go test -count=1 -race ./dedupfilter/ ./indexer/

for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" "$pkg"
	done
done

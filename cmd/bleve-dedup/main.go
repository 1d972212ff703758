// Command bleve-dedup indexes web pages into bleve while keeping duplicate
// and near-duplicate pages out, and inspects the result. Every subcommand is
// a thin client of the library packages; see README.md.
//
// Exit status: 0 when everything was read, 2 when the run finished but
// some pages had errors and were left out (each named on stderr), 1 when
// it failed or SIGINT or SIGTERM stopped it; serve exits 0 when a signal
// stops it cleanly.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command line args and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "bleve-dedup:", err)
	if errors.As(err, new(*partialError)) {
		return 2
	}
	return 1
}

// partialError reports a run that finished but left n pages (or
// documents) out, each named on stderr already: exit status 2.
type partialError struct {
	n         int
	one, many string // the message for one, and for n (%d)
}

func (e *partialError) Error() string {
	if e.n == 1 {
		return e.one
	}
	return fmt.Sprintf(e.many, e.n)
}

// partial returns a *partialError for n > 0, else nil.
func partial(n int, one, many string) error {
	if n == 0 {
		return nil
	}
	return &partialError{n, one, many}
}

// notIndexed is the end of a run that could not index n pages: its
// "errors".
func notIndexed(n int) error {
	return partial(n, "1 page not indexed because of an error (named above)", "%d pages not indexed because of errors (named above)")
}

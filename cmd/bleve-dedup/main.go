// Command bleve-dedup indexes web pages into bleve while keeping duplicate
// and near-duplicate pages out, and inspects the result. Every subcommand is
// a thin client of the library packages; see README.md.
//
// Exit status: 0 when everything was read, 2 when the run finished but
// skipped some pages (each named on stderr), 1 when it failed or SIGINT
// or SIGTERM stopped it; serve exits 0 when a signal stops it cleanly.
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
	if errors.As(err, new(*skippedError)) {
		return 2
	}
	return 1
}

// skippedError reports a run that finished but skipped pages: exit
// status 2.
type skippedError struct{ n int }

func (e *skippedError) Error() string {
	if e.n == 1 {
		return "1 page was skipped (see above)"
	}
	return fmt.Sprintf("%d pages were skipped (see above)", e.n)
}

// skipped returns a *skippedError for n > 0 skipped pages, else nil.
func skipped(n int) error {
	if n == 0 {
		return nil
	}
	return &skippedError{n}
}

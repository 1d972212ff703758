//go:build !unix

package embedded

import "errors"

// freeBytes is unknown here: the check of Options.MinFree is skipped.
func freeBytes(string) (int64, error) { return 0, errors.ErrUnsupported }

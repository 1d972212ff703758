package eval

import "errors"

// ErrSyntax is wrapped by ReadLabels for a line that is not a label.
var ErrSyntax = errors.New("bad label line")

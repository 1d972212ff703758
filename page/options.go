package page

// Options controls [Read].
type Options struct {
	// MaxBytes is the largest document accepted, counted in bytes after
	// gunzipping (and, for JSONL, of the html or text field after JSON
	// unescaping). Larger documents are skipped with ErrTooLarge; plain
	// files are rejected from their size without being read, gzip files
	// and JSONL lines are read at most about twice this much (a JSONL line
	// longer than 2*MaxBytes+64 KiB is discarded as it streams by).
	// Zero or negative means no limit, which lets one huge document take
	// all memory.
	MaxBytes int64
}

// DefaultMaxBytes is the default Options.MaxBytes: 8 MiB, far above real
// article pages (a few hundred KiB) yet small enough to bound memory.
const DefaultMaxBytes = 8 << 20

// DefaultOptions returns the recommended options.
func DefaultOptions() Options {
	return Options{MaxBytes: DefaultMaxBytes}
}

// lineLimit is the longest JSONL line kept in memory.
func (o Options) lineLimit() int64 {
	if o.MaxBytes <= 0 {
		return 0
	}
	return 2*o.MaxBytes + 64<<10
}

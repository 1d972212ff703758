package page

// Options controls [Read].
type Options struct {
	// MaxBytes is the largest document accepted, counted in bytes after
	// gunzipping (and, for JSONL, of the html or text field after JSON
	// unescaping; for WARC, of the HTTP body as archived). Larger
	// documents are skipped with ErrTooLarge; plain files and WARC
	// records are rejected from their size without being read, gzip
	// files, content-encoded WARC bodies and JSONL lines are read at most
	// about twice this much (a JSONL line longer than 2*MaxBytes+64 KiB
	// is discarded as it streams by). Zero or negative means no limit,
	// which lets one huge document take all memory.
	MaxBytes int64
	// MaxHeaderBytes bounds each header block of a WARC input: a record's
	// WARC header (its version line and fields) and the HTTP header
	// archived in a response record. A record whose WARC header is longer
	// cannot be read (ErrCorrupt; reading goes on at the next record), a
	// page whose HTTP header is longer is ErrCorrupt. Zero or negative
	// means DefaultMaxHeaderBytes: a line without an end would otherwise
	// take all memory.
	MaxHeaderBytes int
}

// DefaultMaxBytes is the default Options.MaxBytes: 8 MiB, far above real
// article pages (a few hundred KiB) yet small enough to bound memory.
const DefaultMaxBytes = 8 << 20

// DefaultMaxHeaderBytes is the default Options.MaxHeaderBytes: 256 KiB,
// far above real headers (a WARC header is a few hundred bytes; proxies
// such as nginx refuse an HTTP response header past 4 to 8 KiB by
// default) and small beside MaxBytes.
const DefaultMaxHeaderBytes = 256 << 10

// DefaultOptions returns the recommended options.
func DefaultOptions() Options {
	return Options{MaxBytes: DefaultMaxBytes, MaxHeaderBytes: DefaultMaxHeaderBytes}
}

// lineLimit is the longest JSONL line kept in memory.
func (o Options) lineLimit() int64 {
	if o.MaxBytes <= 0 {
		return 0
	}
	return 2*o.MaxBytes + 64<<10
}

// headerLimit is the longest header block read.
func (o Options) headerLimit() int {
	if o.MaxHeaderBytes <= 0 {
		return DefaultMaxHeaderBytes
	}
	return o.MaxHeaderBytes
}

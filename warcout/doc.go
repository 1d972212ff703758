// Package warcout records HTTP exchanges in rotating WARC files, so that
// a crawl can be indexed again from its archive (bleve-dedup index reads
// the files) or handed to other WARC tools. It is built on gowarc's
// writer.
//
// # Basics
//
//	rec, err := warcout.Open("crawl.warc.gz", warcout.DefaultOptions())
//	client := &http.Client{Transport: rec.Transport(nil)}
//	... // every response body closed is an exchange archived
//	err = errors.Join(rec.Close(), rec.Err())
//
// Each exchange becomes a request record and a response record (WARC/1.1,
// one gzip member each), written when the caller closes the response body
// and linked by WARC-Concurrent-To, with WARC-Target-URI, WARC-Date (when
// the request started), WARC-IP-Address (the address connected to) and
// SHA-1 block and payload digests. Every file starts with a warcinfo
// record. Redirects and robots.txt fetches are exchanges like any other.
//
// The request block is the request line and the header fields as the
// transport wrote them (Host, and the Accept-Encoding Go adds, included).
// The response block is the status line, the header as Go parsed it and
// the body bytes the caller read. Go undoes chunking, and the gzip coding
// when it requested gzip itself; it then drops Transfer-Encoding, and
// Content-Encoding and Content-Length, so the header describes the body
// archived and readers (ours honours Content-Encoding and chunking) decode
// what the header says. A body requested compressed by the caller is
// archived as sent, with its Content-Encoding.
//
// A body the caller did not read to its end is archived as far as it was
// read, marked WARC-Truncated: "length" when the caller stopped (a page
// over the crawler's MaxBytes, a type it does not read, an error status
// whose body it skips), "time" when reading timed out, "disconnect" when
// it failed otherwise. The page reader reports such an HTML response as
// page.ErrTruncated rather than index part of a page. An exchange whose
// request was cancelled before its body was read is not archived: a
// crawl being stopped fetches the page again when it resumes.
//
// Files: the first is the name given (NAME.warc.gz, or NAME.warc
// uncompressed); once one has grown past Options.MaxSize (1 GiB) the next
// exchange starts NAME-00001.warc.gz, then NAME-00002.warc.gz, ... A
// request and its response are never split. A file carries the suffix
// ".open" until it is closed. Open on a series that has files already (a
// resumed crawl) goes on after the highest serial, never overwriting; a
// file a crashed run left open is cut after its last whole record and
// closed. To read such a file without resuming, rename it without
// ".open": our reader reports its cut last record (page.ErrCorrupt) and
// reads the others.
//
// A failure to write is kept (Err) and later exchanges are not archived:
// the crawler stops at its next page, leaving that page queued, so the
// archive has no hole the crawl does not know of.
//
// # Caveats
//
//   - The header archived is Go's view of it, not the bytes on the wire:
//     field names canonical, fields sorted, the framing fields above
//     dropped. The request line says HTTP/1.1 (the crawler's transport
//     speaks nothing else).
//   - Exchanges that end without a response (a refused connection, a
//     time-out before the header) are not archived, and neither is a
//     response whose body is never closed.
//   - Records are in the order bodies were closed; with several crawl
//     workers that is not quite the order the crawler indexed the pages.
//   - Shell globs list NAME.warc.gz after NAME-00001.warc.gz; give the
//     files in the order written when the order matters (re-indexing).
//   - One recorder per series at a time: another process writing the same
//     NAME would take serials in between, and Open would close the file
//     it is writing.
//   - Records are not synced to disk one by one: a process crash loses
//     nothing written, a power loss may lose the last records.
//   - Through a proxy, WARC-IP-Address is the proxy's address.
package warcout

// Package page reads web pages from directories, JSONL files and WARC
// archives and decodes their bytes to UTF-8.
//
// [Read] walks its inputs and yields one [Page] per document, in a
// deterministic order: a directory is walked in lexical order, a JSONL file in
// line order, a WARC file in record order, inputs in the order given. A
// problem with one document (empty, too large, binary, broken JSON line,
// corrupt or skipped WARC record) is yielded as a [*Error]
// wrapping one of the sentinel errors, and iteration goes on, so a caller can
// count or log failures and keep indexing.
//
// # Ids
//
// A file of a directory is named by its path under the directory without
// the extensions that gave its kind away ("site/a.html.gz" is "site/a"), a
// single file by its base name likewise, a JSONL record by its id field, and a
// WARC record by the canonical form of its WARC-Target-URI (canon.URL), so
// that "http://Example.com/a/index.html?utm_source=x" and
// "http://example.com/a/" are one document. An id that comes again is
// yielded again: an index takes the later page as the newer version of the
// document. Page.URL keeps the URI as archived.
//
// # WARC
//
// .warc and .warc.gz files (WARC/1.0 and 1.1, one gzip member per record,
// as Heritrix, wget and Common Crawl write them, or gzipped as a whole)
// are read streaming, and every read is bounded, so that memory grows
// neither with the file nor with what it decompresses to: a record's WARC
// header and the HTTP header it archives by Options.MaxHeaderBytes, a
// page by Options.MaxBytes (a record whose page is larger is reported as
// ErrTooLarge without being held: passed over in a plain file,
// decompressed and discarded in a gzipped one), and a gzip member by the
// record it holds (a member that goes on past its record is corrupt). A
// gzip bomb is reported from its first bytes, or, if it is a well-formed
// record, once its block was decompressed and discarded. Response
// records of http(s) URIs yield their HTTP payload (chunked transfer and
// gzip or deflate content encodings undone; others are ErrEncoding),
// resource records their block. A response whose status is not 2xx is
// reported as ErrHTTPStatus, content that is not HTML (by Content-Type,
// or sniffed when there is none) as ErrNotHTML; both wrap ErrSkipped, so
// a caller can count skips apart from failures. An HTML response the
// archiver cut short (WARC-Truncated, as for a body over its size limit)
// is reported as ErrTruncated, an error: a part of a page is not the
// page, as with Options.MaxBytes. Other records (warcinfo, request,
// metadata, revisit) and other URIs (dns:, metadata:) are not pages and
// pass silently. The HTTP Content-Type charset is given to [Decode] as
// the header label. A record that cannot be read whole (a cut or garbled
// gzip member, a member holding no record or more than its record, a
// header over the limit or broken, a block shorter than its
// Content-Length, a page's block not matching its WARC-Block-Digest) is
// reported as ErrCorrupt with its record number and byte offset (in the
// file as stored), and reading starts again one byte after that record's
// start (after what was read, for an over-long header or a block whose
// digest differs in a plain file), scanning for the next record; a
// damaged stretch is reported once, and bytes between records that start
// none are passed over. A file gzipped as a whole (its first member holds
// more than one record) is read as one gunzipped stream, named "PATH
// (gunzipped)" with offsets counted in it, a damaged record passed by
// scanning on. wget's "<uri>" form of WARC-Target-URI (the WARC/1.0
// grammar's) is read without its brackets.
//
// # Charsets
//
// [Decode] applies to raw bytes only (directory input). Labels are read in
// this order: a byte order mark, the charset of the caller's content type
// (the HTTP header), then each <meta charset> or http-equiv declaration in
// the first 4 KiB in document order. They are trusted only as far as the
// bytes agree, because real pages lie: UTF-8 pages labelled gb2312, GBK
// pages under a template's <meta charset="UTF-8">, Windows-1252 pages
// declared UTF-8, servers sending iso-8859-1 for everything.
//
//   - Non-ASCII bytes that form valid UTF-8 are UTF-8, whatever a label
//     says: legacy multi-byte text is practically never valid UTF-8.
//   - Otherwise the first label whose decoding turns at most 1% of the
//     non-ASCII characters into errors (replacement, private-use or C1
//     control characters) is used; a single-byte label (iso-8859-1,
//     windows-125x, ...) decodes anything without errors, so it is kept
//     unless a multi-byte detection candidate reads the bytes as real text
//     and better (a GBK page behind a server's default iso-8859-1).
//   - Otherwise the charset is detected: UTF-8, GB18030, Big5, Shift_JIS,
//     EUC-KR and Windows-1252 each decode the non-ASCII parts of the page
//     (64 KiB at most), and the one whose text reads most like real
//     writing wins (common Chinese, Japanese or Korean characters and
//     isolated accented letters count; decoding errors, rare characters and
//     runs of accented capitals cost).
//
// Declared GB2312 and GBK are decoded as GB18030, their superset. A page is
// never rejected for its charset: Windows-1252 decodes any bytes. Page.Charset
// and Page.CharsetSource say what was used and why (bom, header, meta,
// sniffed when there was no label, overridden when the bytes disagreed with
// every label). On a development set built to lie (internal/cmd/mislabel),
// 1,934 of 1,935 pages decode to the same text as with the right label; the
// other holds mostly text its encoding cannot represent.
//
// The html field of a JSONL record is already text and is never decoded
// again, whatever its <meta> says (CharsetSource "jsonl").
package page

// Package page reads web pages from directories and JSONL files and decodes
// their bytes to UTF-8.
//
// [Read] walks its inputs and yields one [Page] per document, in a
// deterministic order: a directory is walked in lexical order, a JSONL file in
// line order, inputs in the order given. A problem with one document (empty,
// too large, binary, undecodable, broken JSON line, duplicate id) is yielded
// as a [*Error] wrapping one of the sentinel errors, and iteration goes on, so
// a caller can count or log failures and keep indexing.
//
// Charset detection ([Decode]) applies to raw bytes only (directory input):
// a byte order mark wins, then the charset of the caller's content type, then a
// <meta charset> or http-equiv declaration in the first 4 KiB, then sniffing
// (UTF-8 if valid, else the better of GB18030 and Big5 when one of them reads
// as Chinese, else windows-1252 as browsers do). Declared GB2312 and GBK are
// decoded as GB18030, their superset. The html field of a JSONL record is
// already text and is never decoded again, whatever its <meta> says.
//
// Caveats: sniffing only knows Chinese legacy encodings; a page in, say,
// Shift_JIS without a declaration comes out as windows-1252 mojibake. Bytes
// that claim UTF-8 but are not valid UTF-8 are rejected with ErrInvalidUTF8
// rather than repaired, because a wrong declaration usually means the whole
// page is in another encoding and a repaired text would be garbage.
package page

// Reads WARC files with another implementation than ours, warcio.js
// (webrecorder's, from npm), and checks every record: WARC/1.1, an id and
// a date, Content-Length against the block read, WARC-Block-Digest and
// WARC-Payload-Digest (SHA-1, base 32) against the bytes, and
// WARC-Concurrent-To on request and response records. It prints one
// line per bad record (at most nine) and a JSON summary, and exits 1 if
// any record is bad.
//
//   mkdir /tmp/warcio && (cd /tmp/warcio && npm install warcio@2.4.11)
//   NODE_PATH=/tmp/warcio/node_modules node scripts/warc-verify.mjs crawl.warc.gz crawl-*.warc.gz
import { createRequire } from 'node:module';
import { createReadStream } from 'node:fs';
import { createHash } from 'node:crypto';

// Through require, so that NODE_PATH finds the package installed aside.
const { WARCParser } = createRequire(import.meta.url)('warcio');

const b32 = (buf) => {
  const a = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'; let bits = 0, v = 0, out = '';
  for (const x of buf) { v = (v << 8) | x; bits += 8; while (bits >= 5) { out += a[(v >>> (bits - 5)) & 31]; bits -= 5; } }
  if (bits > 0) out += a[(v << (5 - bits)) & 31];
  while (out.length % 8) out += '=';
  return out;
};
const sha1 = (b) => 'sha1:' + b32(createHash('sha1').update(b).digest());
const counts = {}; let bad = 0, n = 0, bytes = 0, truncated = 0;
for (const f of process.argv.slice(2)) {
  const parser = new WARCParser(createReadStream(f), { parseHttp: false });
  for await (const rec of parser) {
    n++;
    const block = Buffer.from(await rec.readFully(false));
    const h = rec.warcHeaders.headers;
    const type = h.get('WARC-Type'); counts[type] = (counts[type] || 0) + 1;
    if (h.get('WARC-Truncated')) truncated++;
    const problems = [];
    if (Number(h.get('Content-Length')) !== block.length) problems.push(`Content-Length ${h.get('Content-Length')} != ${block.length}`);
    if (h.get('WARC-Block-Digest') !== sha1(block)) problems.push('block digest');
    if (type === 'response' || type === 'request') {
      const i = block.indexOf('\r\n\r\n');
      if (i < 0) problems.push('no end of HTTP header');
      else if (h.get('WARC-Payload-Digest') !== sha1(block.subarray(i + 4))) problems.push('payload digest');
      if (!h.get('WARC-Concurrent-To')) problems.push('no WARC-Concurrent-To');
    }
    if (!h.get('WARC-Record-ID') || !h.get('WARC-Date') || rec.warcHeaders.protocol !== 'WARC/1.1') problems.push('missing fields');
    bytes += block.length;
    if (problems.length) { bad++; if (bad < 10) console.log(f, type, h.get('WARC-Target-URI'), problems.join('; ')); }
  }
}
console.log(JSON.stringify({ records: n, byType: counts, truncated, blockBytes: bytes, bad }));
process.exitCode = bad > 0 ? 1 : 0;

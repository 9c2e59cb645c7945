// tests/whatwg_diff.mjs - host differential against a WHATWG URL parser
// (Node's built-in URL), fuzz/README.md: no two parsers we can run extract
// different hosts from a URI unless urisan flags it ambiguous_authority
// (or invalid; ip_obfuscated when the other side reads an address).
//
//   node tests/whatwg_diff.mjs URISAN_EXE [--mutations N] [--seed S]
//                              [--show-rejects N] [--sample K] FILE...
//
// Inputs: every line of each FILE (a directory: every file in it, one
// input each, skipped when it holds CR or LF), plus N seeded mutations of
// each line around the authority. --sample K: every Kth line of each FILE
// that is a file (from a different offset in each), a directory's files
// all. urisan judges them all in one
// `urisan check --json` run. For an input urisan leaves unflagged with a
// special scheme (http, https, ws, wss, ftp) that WHATWG also parses, the
// hosts must agree: urisan's host lower-cased (its address text for IP
// hosts; an IPv6 address with a dotted tail in WHATWG's all-hex text)
// against WHATWG's hostname. Prints each disagreement and a
// summary; exit status 1 when there is one, 2 on a usage error.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
if (args.length < 2) {
  console.error('usage: node tests/whatwg_diff.mjs URISAN_EXE [--mutations N] [--seed S] FILE...');
  process.exit(2);
}
const exe = args.shift();
let mutations = 0;
let seed = 1;
let showRejects = 0;
let sample = 1;
const files = [];
while (args.length) {
  const a = args.shift();
  if (a === '--mutations') mutations = Number(args.shift());
  else if (a === '--seed') seed = Number(args.shift());
  else if (a === '--show-rejects') showRejects = Number(args.shift());
  else if (a === '--sample') sample = Math.max(1, Number(args.shift()));
  else files.push(a);
}

// xorshift32: reproducible mutations
function rnd() {
  seed ^= seed << 13; seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5; seed >>>= 0;
  return seed;
}

const pieces = ['\\', '@', '%', ':', '/', '?', '#', '\t', '[', ']', '.', '0x', '%2e', '%40',
  '%2f', '%5c', ' ', '\x00', '0', '1', '::', 'xn--', '。', '１', '%41', '\u00ad', ';', ',', '=',
  '%25', '//', '..', '-', '_', '~', '!', '$', "'", '(', '*', '+', '&', '^', '|', '{', '`'];

function mutate(s) {
  // around the authority: the first 40 bytes after "//", or the start
  const at = s.indexOf('//');
  const lo = at >= 0 ? at : 0;
  const hi = Math.min(s.length, lo + 40);
  let t = s;
  const edits = 1 + (rnd() % 3);
  for (let e = 0; e < edits; e++) {
    const p = lo + (rnd() % Math.max(1, hi - lo + 1));
    const piece = pieces[rnd() % pieces.length];
    switch (rnd() % 3) {
      case 0: t = t.slice(0, p) + piece + t.slice(p); break;
      case 1: t = t.slice(0, p) + piece + t.slice(p + 1); break;
      default: t = t.slice(0, p) + t.slice(p + 1); break;
    }
  }
  return t;
}

const inputs = [];
function addLine(l) {
  if (l.length === 0 || /[\r\n]/.test(l)) return;
  inputs.push(l);
  for (let k = 0; k < mutations; k++) {
    const m = mutate(l);
    if (m.length && !/[\r\n]/.test(m)) inputs.push(m);
  }
}
for (const [fi, f] of files.entries()) {
  let st;
  try { st = statSync(f); } catch { console.log(`whatwg_diff: ${f} not found, skipped`); continue; }
  if (st.isDirectory()) {
    for (const n of readdirSync(f)) addLine(readFileSync(join(f, n), 'latin1'));
  } else {
    const lines = readFileSync(f, 'latin1').split('\n');
    for (let k = fi % sample; k < lines.length; k += sample) addLine(lines[k]);
  }
}
if (inputs.length === 0) {
  console.log('whatwg_diff: no inputs (data sets absent?), nothing to compare');
  process.exit(0);
}

// urisan in batches (its JSON is a few hundred bytes per input)
const out = [];
const BATCH = 100000;
for (let b = 0; b < inputs.length; b += BATCH) {
  const part = inputs.slice(b, b + BATCH);
  const r = spawnSync(exe, ['check', '--json'], {
    input: Buffer.from(part.join('\n') + '\n', 'latin1'),
    maxBuffer: 1 << 30,
  });
  if (r.error || (r.status !== 0 && r.status !== 1)) {
    console.error(`whatwg_diff: ${exe} check failed: ${r.error || r.stderr}`);
    process.exit(2);
  }
  const lines = r.stdout.toString('utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines.length !== part.length) {
    console.error(`whatwg_diff: ${part.length} inputs, ${lines.length} output lines`);
    process.exit(1);
  }
  for (const l of lines) out.push(l);
}

const special = new Set(['http', 'https', 'ws', 'wss', 'ftp']);
const allowed = ['ambiguous_authority', 'invalid', 'ip_obfuscated'];
let compared = 0, flaggedDiff = 0, whatwgRejects = 0, bad = 0;
for (let i = 0; i < inputs.length; i++) {
  const o = JSON.parse(out[i]);
  const c = o.components;
  if (!c || c.scheme === null || c.host === null) continue;
  const scheme = c.scheme.toLowerCase();
  if (!special.has(scheme)) continue;
  // Node's URL works on a string: the bytes as Latin-1 code points, as
  // they were read; non-ASCII is invalid for urisan anyway.
  let w;
  try { w = new URL(inputs[i]); } catch { w = null; }
  const isFlagged = o.flags.some((f) => allowed.includes(f));
  if (w === null) {
    if (!isFlagged && whatwgRejects++ < showRejects)
      console.log(`WHATWG rejects: ${JSON.stringify(inputs[i])} (urisan flags ${o.flags.join(',') || '-'})`);
    continue;
  }
  if (w.protocol !== scheme + ':') {
    if (!isFlagged) {
      bad++;
      console.log(`DIFF scheme: ${JSON.stringify(inputs[i])}: urisan ${scheme}, WHATWG ${w.protocol}`);
    }
    continue;
  }
  let ours = c.host.toLowerCase();
  if (o.host_ip !== null) ours = o.host_ip;
  let theirs = w.hostname;
  if (theirs.startsWith('[') && theirs.endsWith(']')) theirs = theirs.slice(1, -1);
  if (ours.startsWith('[') && ours.endsWith(']')) ours = ours.slice(1, -1);
  if (c.host_type === 'ipv6' && ours.includes('.')) {
    // the same address in WHATWG's text: no dotted tail (RFC 5952 keeps it)
    ours = new URL(`http://[${ours}]/`).hostname.slice(1, -1);
  }
  compared++;
  if (ours === theirs) continue;
  if (isFlagged) { flaggedDiff++; continue; }
  bad++;
  console.log(`DIFF host: ${JSON.stringify(inputs[i])}: urisan ${JSON.stringify(ours)} ` +
              `(flags ${o.flags.join(',') || '-'}), WHATWG ${JSON.stringify(theirs)}`);
}
console.log(`whatwg_diff: ${inputs.length} inputs, ${compared} hosts compared, ` +
            `${flaggedDiff} differ and are flagged, ${whatwgRejects} unflagged inputs WHATWG rejects, ` +
            `${bad} unflagged disagreements`);
process.exit(bad ? 1 : 0);

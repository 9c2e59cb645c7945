// tests/attr_whatwg_diff.mjs - HTML attribute URLs read as a browser reads
// them, against Node's WHATWG URL parser: every href value (with tabs,
// newlines, leading and trailing C0 controls and spaces, spaces and the
// characters the parser percent-encodes in the path, query and fragment)
// is put in a message; `urisan extract --mail --json` must judge, for each,
// a URI that the WHATWG parser reads as the same URL as the value itself
// (new URL(uri).href === new URL(value).href) and that holds nothing the
// parser strips, removes or percent-encodes (white space, C0 controls,
// DEL, '"', '<', '>'): the URL the browser opens, not the text.
//
//   node tests/attr_whatwg_diff.mjs URISAN_EXE [--count N] [--seed S]
//
// Exit 0: all agree; 1: a disagreement (each printed); 2: usage.
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
if (args.length < 1) {
  console.error('usage: node tests/attr_whatwg_diff.mjs URISAN_EXE [--count N] [--seed S]');
  process.exit(2);
}
const exe = args.shift();
let count = 2000;
let seed = 7;
while (args.length) {
  const a = args.shift();
  if (a === '--count') count = Number(args.shift());
  else if (a === '--seed') seed = Number(args.shift());
}
let state = seed >>> 0 || 1;
function rnd(n) {
  state ^= state << 13; state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5; state >>>= 0;
  return state % n;
}

const bases = [
  'https://www.shop.example/spring/sale.html?utm_source=mail&id=42#top',
  'http://a.example/metsonline-ceaseanddesist.html',
  'mailto:tony@penguin.example?subject=Penguin Shell Donate Web Space',
  'https://click.mail.example/?qs=3a1f9c&u=https%3A%2F%2Fx.example%2F',
  'ftp://ftp.example.org/pub/file.tar.gz',
  'https://user@host.example:8443/a/b/c?x=1&y=2#frag',
  'http://example.com/',
  'https://example.net/path with spaces/and "quotes"?q=a b#f g',
  'https://example.org/{braces}/`tick`?k=<v>&l=\'q\'#`x`',
];
const inside = ['\t', '\n', '\r', '\r\n', ' ', '"', '<', '>', '`', '{', '}', "'", '\x01', '\x1f', '\x7f'];
const ends = [' ', '\t', '\n', '\x01', '\x0c', '\x1f', '  \n '];
const values = [];
for (let i = 0; i < count; i++) {
  let v = bases[rnd(bases.length)];
  const k = 1 + rnd(3);
  const picked = [];
  for (let j = 0; j < k; j++) picked.push(inside[rnd(inside.length)]);
  // the characters other than tabs and newlines first, after the
  // authority only (in the scheme or the host they make no URL, or
  // another one, for either side); then tabs and newlines anywhere after
  // the scheme's first letter
  const ws = (c) => /^[\t\n\r]+$/.test(c);
  for (const c of picked.filter((c) => !ws(c)).concat(picked.filter(ws))) {
    const afterAuth = v.indexOf('/', v.indexOf('//') + 2);
    const lo = ws(c) ? 1 : (afterAuth < 0 ? v.length : afterAuth + 1);
    if (lo >= v.length) continue;
    const at = lo + rnd(v.length - lo);
    v = v.slice(0, at) + c + v.slice(at);
  }
  if (rnd(2)) v = ends[rnd(ends.length)] + v;
  if (rnd(2)) v = v + ends[rnd(ends.length)];
  values.push(v);
}
const esc = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')
  .replace(/>/g, '&gt;').replace(/\x00/g, '');
let html = '';
for (const v of values) html += `<a href="${esc(v)}">x</a>\n`;
const msg = 'From: a@example.org\nSubject: x\nMIME-Version: 1.0\n' +
  'Content-Type: text/html; charset=utf-8\n\n' + html;
const r = spawnSync(exe, ['extract', '--mail', '--json', '-'], { input: msg, maxBuffer: 1 << 28 });
if (r.status !== 0 && r.status !== 1) {
  console.error(`urisan exited ${r.status}: ${r.stderr}`);
  process.exit(1);
}
const rows = r.stdout.toString('utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l))
  .filter((x) => x.context === 'html-href');
if (rows.length !== values.length) {
  console.error(`${rows.length} html-href rows for ${values.length} values`);
  process.exit(1);
}
let same = 0, judged = 0, bad = 0;
const show = (s) => JSON.stringify(s);
for (let i = 0; i < values.length; i++) {
  let want;
  try { want = new URL(values[i]).href; } catch { continue; }
  judged++;
  let got;
  try { got = new URL(rows[i].uri).href; } catch { got = `(no URL: ${rows[i].uri})`; }
  // the URI judged is the URL as the parser reads it: nothing left that
  // the parser strips, removes or percent-encodes on its way in
  const raw = /[\x00-\x20\x7f"<>]/.test(rows[i].uri); // ` stays raw in a query
  if (got === want && !raw) same++;
  else if (bad++ < 20) console.log(`DIFFER ${show(values[i])}: urisan judged ${show(rows[i].uri)} -> ${got}, the browser opens ${want}`);
}
console.log(`attribute URLs: ${values.length}, parsed by WHATWG: ${judged}, the same URL: ${same}`);
process.exit(same === judged && judged > values.length / 2 ? 0 : 1);

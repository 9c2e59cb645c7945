// nested_diff_follow.js - the Node client of tests/nested_diff_test.py:
// reads one URL a line from the file argv[2] and, for each, follows every
// parameter of its query and fragment the way a Node application does
// (URLSearchParams, then new URL(value, page), and new URL(value.trim(),
// page) as an application that trims its input), hop after hop, and prints
// one JSON line: the hosts reached (special schemes only), in order; a
// value that stays on the page's site is no hop.
'use strict';
const fs = require('fs');

const SPECIAL = new Set(['http:', 'https:', 'ws:', 'wss:', 'ftp:']);
const MAX_DEPTH = 6;
const MAX_VISITS = 64;

function values(u) {
  const out = [];
  for (const [, v] of u.searchParams) out.push(v);
  if (u.hash.length > 1)
    for (const [, v] of new URLSearchParams(u.hash.slice(1))) out.push(v);
  return out;
}

function follow(page, depth, seen, hosts) {
  if (depth > MAX_DEPTH || seen.size > MAX_VISITS) return;
  const vs = values(page);
  for (const v of vs.concat(vs.map((x) => x.trim()).filter((x) => !vs.includes(x)))) {
    let t;
    try {
      t = new URL(v, page);
    } catch (e) {
      continue;
    }
    if (seen.has(t.href)) continue;
    seen.add(t.href);
    // a relative reference stays on the page's site: a request of its
    // own, judged there (nested_diff_test.py)
    if (t.protocol === page.protocol && t.host === page.host) continue;
    if (SPECIAL.has(t.protocol) && t.hostname !== '') hosts.push(t.hostname);
    follow(t, depth + 1, seen, hosts);
  }
}

const lines = fs.readFileSync(process.argv[2], 'utf8').split('\n');
if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
const out = [];
for (const line of lines) {
  const hosts = [];
  let page = null;
  try {
    page = new URL(line);
  } catch (e) {
    page = null;
  }
  if (page !== null && /^\/[\/\\]/.test(page.pathname)) {
    // the page's own target joined to it (new URL(req.url, base))
    try {
      const t = new URL(page.pathname + page.search, page);
      if (t.host !== page.host && t.hostname !== '') hosts.push(t.hostname);
    } catch (e) { /* not a URL */ }
  }
  if (page !== null) follow(page, 1, new Set([page.href]), hosts);
  out.push(JSON.stringify(hosts));
}
process.stdout.write(out.join('\n') + '\n');

#!/usr/bin/env python3
"""Impersonation detection (protect-host; the mail profile) measured end
to end: `urisan check --json --profile mail` on sets made here.

    impersonation_eval.py URISAN [--list]

The protected names are the mail profile's (data/impersonated-brands.txt).
No set comes from the tests' own sources (tests/homograph, tests/mail,
the unit tests):

  confusable - made from the protected names by rules a phisher uses:
      IDN: one Latin letter of the brand label replaced by its Cyrillic,
      Greek or Latin-extended look-alike, at each place one exists, and
      the whole label in Cyrillic where every letter has one (expected:
      homograph, host_imitates the brand); ASCII: l -> 1 / I, i -> l / 1,
      o -> 0, m -> rn, w -> vv, rn -> m, once and twice (expected:
      lookalike, host_imitates the brand); each under .com, .net, .org and
      the brand's own suffix.
  legitimate - (psl) the labels of the Public Suffix List's private
      section and of its IDN entries, each as LABEL.com (names of real
      services: blogspot, herokuapp, ...); (urls) the registrable domains
      of the hosts of the shared URL sets (../shared/data/urls, real
      links; absent: left out); (brands) the protected names themselves
      and www. under them. None should be flagged homograph or lookalike.

Prints recall (the right protected name named) and false-positive rate
for homograph and lookalike (the closing note quotes them) and fails when
recall is below or the false-positive rate above the recorded bounds.
--list prints every miss. Exit 77 without the host layer or the PSL file.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BRANDS = os.path.join(ROOT, "data", "impersonated-brands.txt")
PSL = "/usr/share/publicsuffix/public_suffix_list.dat"

# Recorded when the sets were first measured; better is fine, worse fails.
MIN_RECALL_HOMOGRAPH = 0.95
MIN_RECALL_LOOKALIKE = 0.95
MAX_FP_RATE = 0.01

# Look-alikes of Latin letters in other scripts (each one UTS #39
# confusable with the letter).
IDN_GLYPHS = {
    "a": "\u0430", "c": "\u0441", "d": "\u0501", "e": "\u0435", "g": "\u0261",
    "h": "\u04bb", "i": "\u0456", "j": "\u0458", "k": "\u03ba", "l": "\u04cf",
    "o": "\u043e", "p": "\u0440", "q": "\u051b", "s": "\u0455", "u": "\u03c5",
    "v": "\u03bd", "w": "\u051d", "x": "\u0445", "y": "\u0443",
}
ASCII_SWAPS = [("l", "1"), ("l", "I"), ("i", "l"), ("i", "1"), ("o", "0"),
               ("m", "rn"), ("w", "vv"), ("rn", "m")]


def brands():
    out = []
    with open(BRANDS, encoding="ascii") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                out.append(line.split()[0])
    return out


def confusables(names):
    idn, asc = [], []
    for name in names:
        label, suffix = name.split(".", 1)
        tlds = ["com", "net", "org"] + ([suffix] if suffix not in ("com", "net", "org") else [])
        variants = set()
        for i, ch in enumerate(label):
            if ch in IDN_GLYPHS:
                variants.add(label[:i] + IDN_GLYPHS[ch] + label[i + 1:])
        if all(ch in IDN_GLYPHS for ch in label):
            variants.add("".join(IDN_GLYPHS[ch] for ch in label))
        for v in sorted(variants):
            for t in tlds:
                idn.append((v + "." + t, name))
        avar = set()
        for a, b in ASCII_SWAPS:
            start = 0
            while (i := label.find(a, start)) >= 0:
                avar.add(label[:i] + b + label[i + len(a):])
                start = i + 1
        for v in sorted(avar):          # a second swap on each
            for a, b in ASCII_SWAPS:
                i = v.find(a)
                if i >= 0:
                    avar.add(v[:i] + b + v[i + len(a):])
        for v in sorted(avar):
            if v.lower() == label:      # swapped back, or only case changed
                continue
            for t in tlds:
                asc.append((v + "." + t, name))
    return idn, asc


def legitimate(names):
    labels = []
    with open(PSL, encoding="utf-8") as f:
        private = False
        for line in f:
            line = line.strip()
            if "===BEGIN PRIVATE DOMAINS===" in line:
                private = True
            if not line or line.startswith("//") or line[0] in "*!":
                continue
            first = line.split(".")[0]
            nonascii = any(ord(c) > 127 for c in line)
            if (private and "." in line) or (nonascii and "." in line):
                labels.append(first)
    seen, out = set(), []
    for lab in labels:
        if lab not in seen and len(lab) > 1:
            seen.add(lab)
            out.append(lab + ".com")
    out += names + ["www." + n for n in names]
    return out


def shared_hosts():
    """The last two labels of each host name of the shared URL sets."""
    data = os.environ.get("URISAN_DATA") or os.path.join(ROOT, "..", "shared", "data")
    d = os.path.join(data, "urls")
    out = set()
    if not os.path.isdir(d):
        return []
    for fn in sorted(os.listdir(d)):
        if not fn.endswith(".txt"):
            continue
        with open(os.path.join(d, fn), "rb") as f:
            for line in f:
                m = re.match(rb"^[a-zA-Z][a-zA-Z0-9+.-]*://([^/?#:@\s]+)", line.strip())
                if not m:
                    continue
                h = m.group(1).decode("ascii", "replace").lower().rstrip(".")
                labels = h.split(".")
                if len(labels) < 2 or not re.match(r"^[a-z0-9.-]+$", h) or \
                        labels[-1].isdigit():
                    continue
                out.add(".".join(labels[-2:]))
    return sorted(out)


def judge(urisan, hosts):
    inp = "".join(f"http://{h}/\n" for h in hosts).encode()
    p = subprocess.run([urisan, "check", "--json", "--profile", "mail"],
                       input=inp, capture_output=True)
    out = [json.loads(line) for line in p.stdout.decode().splitlines()]
    if len(out) != len(hosts):
        sys.exit(f"{len(hosts)} hosts, {len(out)} answers: {p.stderr.decode()[:300]}")
    return out


def kind(row):
    f = row["flags"]
    k = "homograph" if "homograph" in f else "lookalike" if "lookalike" in f else "none"
    return f"{k} {row.get('host_imitates')}" if k != "none" else "none"


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    urisan = sys.argv[1]
    if not os.path.exists(PSL):
        print("SKIP: no Public Suffix List file at " + PSL)
        return 77
    names = brands()
    idn, asc = confusables(names)
    legit = [(h, "psl") for h in legitimate([])]
    legit += [(h, "urls") for h in shared_hosts()]
    legit += [(h, "brands") for h in names + ["www." + n for n in names]]
    every = [h for h, _ in idn] + [h for h, _ in asc] + [h for h, _ in legit]
    v = judge(urisan, every)
    if "host_imitates" not in v[0]:
        print("SKIP: urisan was built without the host layer")
        return 77
    answers = [kind(r) for r in v]
    a_idn = answers[:len(idn)]
    a_asc = answers[len(idn):len(idn) + len(asc)]
    a_leg = answers[len(idn) + len(asc):]
    miss_h = [(h, want, got) for (h, want), got in zip(idn, a_idn) if got != f"homograph {want}"]
    miss_l = [(h, want, got) for (h, want), got in zip(asc, a_asc) if got != f"lookalike {want}"]
    fp = [(h, src, got) for (h, src), got in zip(legit, a_leg) if got != "none"]
    fp_h = [x for x in fp if x[2].startswith("homograph")]
    fp_l = [x for x in fp if x[2].startswith("lookalike")]
    rh = 1 - len(miss_h) / len(idn)
    rl = 1 - len(miss_l) / len(asc)
    nidn = sum(1 for h, _ in legit if h.startswith("xn--") or any(ord(c) > 127 for c in h))
    print(f"impersonation (check --json --profile mail): {len(names)} protected names; "
          f"{len(idn)} IDN and {len(asc)} ASCII confusables, {len(legit)} legitimate names "
          f"({nidn} IDN; " + ", ".join(f"{src} {sum(1 for _, s in legit if s == src)}"
                                      for src in ("psl", "urls", "brands")) + ")")
    print(f"  homograph recall {rh:.3f} ({len(idn) - len(miss_h)}/{len(idn)}, imitated name "
          f"right); lookalike recall {rl:.3f} ({len(asc) - len(miss_l)}/{len(asc)})")
    print(f"  false positives: homograph {len(fp_h)}/{len(legit)} = {len(fp_h) / len(legit):.4f}, "
          f"lookalike {len(fp_l)}/{len(legit)} = {len(fp_l) / len(legit):.4f}")
    show = "--list" in sys.argv[2:]
    for x in (miss_h + miss_l)[: None if show else 10]:
        print("    MISS", *x)
    for x in fp[: None if show else 20]:
        print("    FP", *x)
    fpr = len(fp) / len(legit)
    ok = (len(idn) >= 300 and len(asc) >= 300 and len(legit) >= 300 and
          rh >= MIN_RECALL_HOMOGRAPH and rl >= MIN_RECALL_LOOKALIKE and fpr <= MAX_FP_RATE)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

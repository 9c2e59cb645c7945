#!/usr/bin/env python3
"""Impersonation detection (src/cli/imitation.c) measured on sets made here.

    impersonation_eval.py URISAN IMITATION_JUDGE [--list]

The protected names are data/impersonated-brands.txt. Neither set comes
from the tests' own sources (tests/homograph, the unit tests):

  confusable - made from the protected names by rules a phisher uses:
      IDN: one Latin letter of the brand label replaced by its Cyrillic,
      Greek or Latin-extended look-alike, at each place one exists, and
      the whole label in Cyrillic where every letter has one (expected:
      homograph); ASCII: l -> 1 / I, i -> l / 1, o -> 0, m -> rn, w -> vv,
      rn -> m, once and twice (expected: lookalike); each under .com, .net,
      .org and the brand's own suffix.
  legitimate - the labels of the Public Suffix List's private section
      (names of real services: blogspot, herokuapp, ...) and of its IDN
      entries, each as LABEL.com; plus the protected names themselves and
      www. under them. None should be flagged.

The host forms (registrable domain, the UTS #39 skeleton of the brand
label) come from `urisan check --json`; the judgement from
IMITATION_JUDGE (tests/imitation_judge.c, the same code the host layer
runs). Prints recall and false-positive rate for homograph and lookalike
(the closing note quotes them) and fails when recall is below or the
false-positive rate above the recorded bounds. --list prints every miss.
Exit 77 without hostview (no host_skeleton) or without the PSL file.
"""
import json
import os
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


def views(urisan, hosts):
    inp = "".join(f"http://{h}/\n" for h in hosts).encode()
    p = subprocess.run([urisan, "check", "--json", "--fields",
                        "host_unicode,host_skeleton,registrable_domain"],
                       input=inp, capture_output=True)
    out = [json.loads(line) for line in p.stdout.decode().splitlines()]
    if len(out) != len(hosts):
        sys.exit(f"{len(hosts)} hosts, {len(out)} answers: {p.stderr.decode()[:300]}")
    return out


def forms(host_view):
    """(registrable, brand_len, brand_skeleton, idn) from a check --json row."""
    reg = host_view.get("registrable_domain")
    skel = host_view.get("host_skeleton") or ""
    uni = host_view.get("host_unicode") or ""
    if not reg or not skel:
        return "-", 0, "-", False
    nreg = reg.count(".") + 1
    sl = skel.split(".")
    ul = uni.split(".")
    i = len(sl) - nreg
    if i < 0 or len(ul) != len(sl):
        return "-", 0, "-", False
    brand = reg.split(".")[0]
    idn = brand.startswith("xn--") or any(ord(c) > 127 for c in ul[i])
    return reg, len(brand), sl[i] or "-", idn


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    urisan, judge = sys.argv[1], sys.argv[2]
    if not os.path.exists(PSL):
        print("SKIP: no Public Suffix List file at " + PSL)
        return 77
    names = brands()
    idn, asc = confusables(names)
    legit = legitimate(names)
    every = names + [h for h, _ in idn] + [h for h, _ in asc] + legit
    v = views(urisan, every)
    if "host_skeleton" not in v[0]:
        print("SKIP: urisan was built without hostview")
        return 77
    lines = []
    for name, row in zip(names, v[:len(names)]):
        reg, blen, bskel, _ = forms(row)
        lines.append(f"protect\t{name}\t{blen}\t{bskel}")
    rows = v[len(names):]
    for h, row in zip(every[len(names):], rows):
        reg, blen, bskel, idnf = forms(row)
        lines.append(f"host\t{reg}\t{blen}\t{bskel}\t{1 if idnf else 0}")
    p = subprocess.run([judge], input="\n".join(lines).encode() + b"\n", capture_output=True)
    answers = p.stdout.decode().splitlines()
    n_hosts = len(every) - len(names)
    if len(answers) != n_hosts:
        print(f"{n_hosts} hosts, {len(answers)} answers: {p.stderr.decode()[:300]}")
        return 1
    a_idn = answers[:len(idn)]
    a_asc = answers[len(idn):len(idn) + len(asc)]
    a_leg = answers[len(idn) + len(asc):]
    miss_h = [(h, want, got) for (h, want), got in zip(idn, a_idn) if got != f"homograph {want}"]
    miss_l = [(h, want, got) for (h, want), got in zip(asc, a_asc) if got != f"lookalike {want}"]
    fp = [(h, got) for h, got in zip(legit, a_leg) if got != "none"]
    rh = 1 - len(miss_h) / len(idn)
    rl = 1 - len(miss_l) / len(asc)
    fpr = len(fp) / len(legit)
    print(f"impersonation: {len(names)} protected names; {len(idn)} IDN and {len(asc)} ASCII "
          f"confusables, {len(legit)} legitimate names")
    print(f"  homograph recall {rh:.3f} ({len(idn) - len(miss_h)}/{len(idn)}, imitated name "
          f"right); lookalike recall {rl:.3f} ({len(asc) - len(miss_l)}/{len(asc)})")
    print(f"  false positives {len(fp)}/{len(legit)} = {fpr:.4f}")
    show = "--list" in sys.argv[3:]
    for x in (miss_h + miss_l)[: None if show else 10]:
        print("    MISS", *x)
    for x in fp[: None if show else 10]:
        print("    FP", *x)
    ok = (len(idn) >= 300 and len(asc) >= 300 and len(legit) >= 300 and
          rh >= MIN_RECALL_HOMOGRAPH and rl >= MIN_RECALL_LOOKALIKE and fpr <= MAX_FP_RATE)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

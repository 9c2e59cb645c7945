#!/usr/bin/env python3
"""Impersonation by any look-alike letter, and ordinary words left alone,
under `--profile mail` (doc/policy.md "Impersonation").

- Impersonations: every one-letter substitution of each protected name's
  brand label (the mail profile's `protect-host` list, read from `urisan
  policy show --profile mail`) by a look-alike of that letter: the letter
  with a diacritic (each of eight combining marks, composed: à á â ã ä ȧ
  ā ạ ...), its Latin small capital, dotless i and j, Latin alpha and
  script g, and its Cyrillic or Greek look-alike. Each host must be denied
  (homograph); at least 99% are. `host_imitates` must name the brand.
- Ordinary IDNs: at least 5,000 words with diacritics from the word lists
  Debian ships (/usr/share/dict: ngerman, french, spanish, portuguese,
  italian, polish, swedish; packages wngerman ...), each as WORD.com: at
  most 0.5% get homograph, each one listed. By default about 1,200 of
  each list, spread over it (from the lines at 20,000 even steps through
  each file); --full: every word.

The links are given as written in Unicode to free-text `urisan extract`,
which judges the URI a browser opens (UTS #46). The rates are printed.

Usage: impersonation_letters_test.py path/to/urisan [--full]
Exit 77 when the word lists are absent or the host layer is not built.
"""
import json
import os
import subprocess
import sys
import unicodedata

URISAN = sys.argv[1]
FULL = "--full" in sys.argv
DICTS = ["ngerman", "french", "spanish", "portuguese", "italian", "polish", "swedish"]
WORDS_MIN = 5000
LINES_SAMPLE = 20000
MARKS = ["\u0300", "\u0301", "\u0302", "\u0303", "\u0308", "\u0307", "\u0304", "\u0323"]
# letter -> look-alikes beyond its diacritic forms
LOOK = {
    "a": "ᴀɑаα", "b": "ʙвьƅ", "c": "ᴄсϲ", "d": "ᴅԁ", "e": "ᴇеє", "f": "ꜰ", "g": "ɢɡ",
    "h": "ʜнһ", "i": "ɪıіι", "j": "ᴊȷј", "k": "ᴋкκ", "l": "ʟӏ", "m": "ᴍм", "n": "ɴпη",
    "o": "ᴏоο", "p": "ᴘрρ", "q": "ꞯԛ", "r": "ʀг", "s": "ꜱѕ", "t": "ᴛтτ", "u": "ᴜ",
    "v": "ᴠνѵ", "w": "ᴡшω", "x": "х", "y": "ʏуγ", "z": "ᴢ",
}


def extract(lines):
    r = subprocess.run([URISAN, "extract", "--json", "--profile", "mail", "-"],
                       input="".join(l + "\n" for l in lines).encode(), capture_output=True)
    return [json.loads(l) for l in r.stdout.decode().splitlines()]


def brands():
    out = subprocess.run([URISAN, "policy", "show", "--profile", "mail"],
                         capture_output=True).stdout.decode()
    names = []
    for line in out.splitlines():
        if line.startswith("protect-host "):
            names += line.split()[1:]
    return names


def variants(letter):
    out = []
    for m in MARKS:
        c = unicodedata.normalize("NFC", letter + m)
        if len(c) == 1 and c != letter:
            out.append(c)
    return out + list(LOOK.get(letter, ""))


def impersonations():
    hosts = []
    for name in brands():
        label, _, suffix = name.partition(".")
        for i, ch in enumerate(label):
            for v in variants(ch):
                hosts.append((name, label[:i] + v + label[i + 1:] + "." + suffix))
    return hosts


def words():
    out = []
    for d in DICTS:
        path = os.path.join("/usr/share/dict", d)
        if not os.path.exists(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        if FULL:
            lines = data.split(b"\n")
        else:
            # the line at each 20,000th of the list (sorted as a
            # dictionary): the words below are spread over all of it
            # without splitting, decoding and sorting millions of lines
            # (polish: 4.3 million)
            lines = []
            for k in range(LINES_SAMPLE):
                a = data.find(b"\n", k * len(data) // LINES_SAMPLE) + 1 if k else 0
                if a == 0 and k:
                    break
                b = data.find(b"\n", a)
                lines.append(data[a:b if b >= 0 else len(data)])
        # Debian's lists are UTF-8 but for wswedish's (ISO-8859-1)
        try:
            text = b"\n".join(lines).decode("utf-8")
        except UnicodeDecodeError:
            text = b"\n".join(lines).decode("latin-1")
        stripped = [w.strip() for w in text.split("\n")]
        ws = sorted({w.lower() for w in stripped
                     if not w.isascii() and w.isalpha() and 3 <= len(w) <= 30})
        step = 1 if FULL else max(1, len(ws) // 1200)
        out += [(d, w) for w in ws[::step]]
    return out


def main():
    probe = extract(["https://xn--80ak6aa92e.com/"])
    if not probe or "homograph" not in probe[0]["flags"]:
        print("SKIP: the host layer is not built (no homograph)")
        return 77
    failed = False
    # impersonations
    hosts = impersonations()
    rows = extract(["https://%s/" % h for _, h in hosts])
    if len(rows) != len(hosts):
        print("FAIL: %d rows for %d impersonations" % (len(rows), len(hosts)))
        return 1
    missed, wrong_name = [], []
    for (name, h), r in zip(hosts, rows):
        if r["verdict"] != "deny":
            missed.append((h, r["flags"]))
        elif r.get("host_imitates") != name and "host_uts46" not in r["flags"]:
            # (UTS #46 maps a compatibility letter such as U+03F2 to
            # another one first: the browser opens another name, judged
            # as written, and no imitation is named)
            wrong_name.append((h, r.get("host_imitates")))
    rate = 1 - len(missed) / len(hosts)
    print("impersonations: %d hosts, %d denied (%.2f%%), host_imitates names the brand for %d"
          % (len(hosts), len(hosts) - len(missed), 100 * rate, len(hosts) - len(missed)
             - len(wrong_name)))
    for h, fl in missed:
        print("  not denied: %s %s" % (h, fl))
    for h, nm in wrong_name:
        print("  denied, host_imitates %s: %s" % (nm, h))
    if rate < 0.99:
        print("FAIL: fewer than 99% of the impersonations denied")
        failed = True
    # ordinary words
    ws = words()
    if len(ws) < WORDS_MIN:
        print("SKIP: %d words with diacritics (need %d; apt-get install wngerman wfrench "
              "wspanish wportuguese witalian wpolish wswedish)" % (len(ws), WORDS_MIN))
        return 1 if failed else 77
    rows = extract(["https://%s.com/" % w for _, w in ws])
    judged = [(d, w, r) for (d, w), r in zip(ws, rows) if "idn" in r["flags"]]
    homo = [(d, w, r.get("host_imitates")) for d, w, r in judged if "homograph" in r["flags"]]
    share = len(homo) / max(1, len(judged))
    print("ordinary IDNs: %d words with diacritics from %d lists, %d judged as IDNs, "
          "%d homograph (%.2f%%)" % (len(ws), len(DICTS), len(judged), len(homo), 100 * share))
    for d, w, name in homo:
        print("  homograph: %s.com (%s; imitates %s)" % (w, d, name))
    if len(judged) < WORDS_MIN:
        print("FAIL: fewer than %d words judged as IDNs" % WORDS_MIN)
        failed = True
    if share > 0.005:
        print("FAIL: more than 0.5% of ordinary words get homograph")
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

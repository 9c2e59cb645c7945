#!/usr/bin/env python3
"""Write tests/mail/idn/hosts.tsv (see tests/mail/idn/SOURCES.md) from the
Public Suffix List and IANA's eleven IDN test domains.

Usage: tools/gen_idn_hosts.py [PSL] > tests/mail/idn/hosts.tsv
"""
import sys
import unicodedata

PSL = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/publicsuffix/public_suffix_list.dat"
# IANA's IDN evaluation test domains (2007): "example.test" in 11 languages.
IANA_TEST = [("مثال.إختبار", "Arabic"), ("مثال.آزمایشی", "Arabic"), ("例子.测试", "Han"),
             ("例子.測試", "Han"), ("пример.испытание", "Cyrillic"), ("उदाहरण.परीक्षा", "Devanagari"),
             ("παράδειγμα.δοκιμή", "Greek"), ("실례.테스트", "Hangul"), ("בײַשפּיל.טעסט", "Hebrew"),
             ("例え.テスト", "Han+Japanese"), ("உதாரணம்.பரிட்சை", "Tamil")]
RENAME = {"HIRAGANA": "Japanese", "KATAKANA": "Japanese", "KATAKANA-HIRAGANA": "Japanese",
          "HANGUL": "Hangul", "CJK": "Han"}


def scripts_of(name):
    out = []
    for ch in name:
        if ord(ch) > 127:
            word = unicodedata.name(ch, "?").split()[0]
            word = RENAME.get(word, word.capitalize())
            if word not in out:
                out.append(word)
    return "+".join(out)


def main():
    section = None
    print("# host\tscript\tsource (tests/mail/idn/SOURCES.md)")
    with open(PSL, encoding="utf-8") as f:
        for line in f:
            entry = line.strip()
            if "BEGIN ICANN" in entry:
                section = "psl-icann"
            if "BEGIN PRIVATE" in entry:
                section = "psl-private"
            if not entry or entry.startswith("//") or entry[0] in "*!":
                continue
            if all(ord(c) < 128 for c in entry):
                continue
            host, src = entry, section
            if "." not in entry:
                host, src = "nic." + entry, section + " (nic. added)"
            print("%s\t%s\t%s" % (host, scripts_of(entry), src))
    for host, script in IANA_TEST:
        print("%s\t%s\tiana-idn-test" % (host, script))


if __name__ == "__main__":
    main()

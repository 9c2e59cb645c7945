#!/usr/bin/env python3
"""README.md's `urisan check --json` sample is what the command prints for
its URI: the ```json block after "`urisan check --json` prints one object
per URI", parsed, equals `urisan check --json URI`, key order included.

Usage: readme_json_test.py URISAN SRCDIR
"""
import json
import os
import re
import subprocess
import sys


def main():
    urisan, src = sys.argv[1], sys.argv[2]
    text = open(os.path.join(src, "README.md"), encoding="utf-8").read()
    m = re.search(r"`urisan check --json` prints one object per URI:\s*```json\n(.*?)```", text,
                  re.S)
    if m is None:
        print("FAIL README.md has no ```json sample after 'urisan check --json prints'")
        return 1
    sample = json.loads(m.group(1), object_pairs_hook=list)
    uri = dict(sample)["uri"]
    r = subprocess.run([urisan, "check", "--json", uri], capture_output=True, text=True)
    got = json.loads(r.stdout, object_pairs_hook=list)
    if "host_unicode" not in dict(got):
        print("SKIP: urisan built without the host layer (the sample shows its keys)")
        return 77
    ok = got == sample
    print(("ok   " if ok else "FAIL ") + "README's sample for %s is the command's output%s"
          % (uri, "" if ok else ":\n  README  %s\n  command %s" % (sample, got)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

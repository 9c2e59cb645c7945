#!/usr/bin/env python3
"""src_graph.py - the include and call graph of the core library (src/*.c,
src/*.h; not src/cli, src/mail) and whether it has a cycle.

    tools/src_graph.py [SRC_DIR]      (default: src next to this script)

Edges: a file -> each "x.h" it includes; a .c file -> the .c file that
defines a non-static function it calls. A header's inline functions count
as the header's. Prints the edges between .c files and exits 1 on a cycle
among them (e.g. analyze.c -> policy.c -> analyze.c), else 0.
"""
import os
import re
import sys

DEF = re.compile(r"^(?!static)[A-Za-z_][\w \*]*?\b(\w+)\s*\([^;]*$", re.M)
CALL = re.compile(r"\b(\w+)\s*\(")


def strip(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r'"(\\.|[^"\\])*"', '""', text)


def main(argv):
    src = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "src")
    files = sorted(f for f in os.listdir(src) if f.endswith((".c", ".h")))
    text = {f: open(os.path.join(src, f), encoding="utf-8").read() for f in files}
    defined = {}
    for f in files:
        if f.endswith(".c"):
            for m in DEF.finditer(strip(text[f])):
                defined.setdefault(m.group(1), f)
    edges = {f: set() for f in files if f.endswith(".c")}
    for f in edges:
        body = strip(text[f])
        for name in set(CALL.findall(body)):
            g = defined.get(name)
            if g and g != f:
                edges[f].add(g)
    inc = {f: set(re.findall(r'#include "([\w.]+)"', text[f])) & set(files) for f in files}
    for f in sorted(edges):
        print("%-18s calls %s" % (f, " ".join(sorted(edges[f])) or "-"))
    for f in files:
        print("%-18s includes %s" % (f, " ".join(sorted(inc[f])) or "-"))
    # cycle search (iterative DFS) over the .c call graph and the include graph
    for name, graph in (("call", edges), ("include", inc)):
        state = {}
        for start in graph:
            if start in state:
                continue
            stack = [(start, iter(sorted(graph[start])))]
            state[start] = 1
            path = [start]
            while stack:
                node, it = stack[-1]
                nxt = next(it, None)
                if nxt is None:
                    state[node] = 2
                    stack.pop()
                    path.pop()
                elif nxt in graph and state.get(nxt) == 1:
                    cyc = path[path.index(nxt):] + [nxt]
                    print("CYCLE (%s): %s" % (name, " -> ".join(cyc)))
                    return 1
                elif nxt in graph and nxt not in state:
                    state[nxt] = 1
                    path.append(nxt)
                    stack.append((nxt, iter(sorted(graph[nxt]))))
    print("no cycle: %d .c files, %d headers" % (len(edges), len(files) - len(edges)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

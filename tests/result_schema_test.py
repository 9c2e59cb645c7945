#!/usr/bin/env python3
"""The JSON Schema in doc/ and the library's description of a result
(urisan_result_keys, src/result.c) name the same keys in the same
order, with the same JSON types: check's properties, the components
object's, a nested URL's. A key added to the description and not to
the schema (or the other way round) fails here.

usage: result_schema_test.py RESULT_KEYS_EXE SCHEMA_JSON
"""
import json
import subprocess
import sys


def types_of(schema, prop):
    """The set of JSON types a property of the schema allows."""
    while "$ref" in prop:
        prop = schema["$defs"][prop["$ref"].split("/")[-1]]
    if "anyOf" in prop or "oneOf" in prop:
        out = set()
        for p in prop.get("anyOf", prop.get("oneOf")):
            out |= types_of(schema, p)
        return out
    if "enum" in prop:
        return {"string" if isinstance(v, str) else "null" for v in prop["enum"]}
    t = prop.get("type")
    if t is None:
        return set()
    return set(t) if isinstance(t, list) else {t}


def object_props(schema, prop):
    while "$ref" in prop:
        prop = schema["$defs"][prop["$ref"].split("/")[-1]]
    if prop.get("type") == "array":
        return object_props(schema, prop["items"])
    for p in prop.get("oneOf", prop.get("anyOf", [])):
        if "properties" in p:
            return p
    return prop


def compare(schema, where, keys, props):
    bad = []
    names = [k["name"] for k in keys]
    if names != list(props):
        bad.append("%s: keys differ: description %s, schema %s" % (where, names, list(props)))
    for k in keys:
        if k["name"] not in props:
            continue
        want = set(k["type"].split("|"))
        have = types_of(schema, props[k["name"]])
        if not want <= have:
            bad.append("%s.%s: description says %s, schema allows %s"
                       % (where, k["name"], sorted(want), sorted(have)))
        if k["sub"]:
            sub = object_props(schema, props[k["name"]])
            bad += compare(schema, where + "." + k["name"], k["sub"], sub["properties"])
    return bad


def check_keys(exe, schema_path, where):
    """0 when the keys exe prints match the schema's object `where`."""
    keys = json.loads(subprocess.run([exe], check=True, capture_output=True,
                                     text=True).stdout)
    with open(schema_path) as f:
        schema = json.load(f)
    bad = compare(schema, where, keys, schema["$defs"][where]["properties"])
    for b in bad:
        print("FAIL:", b)
    if not bad:
        print("ok: %d keys of the description match the schema" % len(keys))
    return 1 if bad else 0


def main():
    return check_keys(sys.argv[1], sys.argv[2], "check")


if __name__ == "__main__":
    sys.exit(main())

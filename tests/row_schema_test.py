#!/usr/bin/env python3
"""The JSON Schema in doc/ and the library's description of a link's row
(urisan_link_row_keys, src/result.c: the lines of `urisan extract
--json`, the Python and Lua modules' extract and extract_mail) name the
same keys in the same order, with the same JSON types. A key added to
the description and not to the schema (or the other way round) fails
here.

usage: row_schema_test.py ROW_KEYS_EXE SCHEMA_JSON
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from result_schema_test import check_keys  # noqa: E402

if __name__ == "__main__":
    sys.exit(check_keys(sys.argv[1], sys.argv[2], "extract"))

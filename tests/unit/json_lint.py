#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check p2pmap --json documents against Documentation/JSON.md.

usage: json_lint.py DOC [FILE...]   (stdin without FILE)

DOC is the section of JSON.md the documents belong to (list, status,
faults, info, policy, monitor, verify, nccl-check, env, doctor).  Every
non-empty line is one document; each must be a JSON object whose first key
is "schema" with P2PMAP_JSON_SCHEMA (user/output/json_schema.h) as its value.
Every string value must sit at a field that the section's "String fields"
table lists, and match its kind there: an enum's value is one of the
values listed, in snake_case; a name has no white space; pci, hex and time
have their formats; text and path are free.  Keys are snake_case, except
in the maps the table names with ".*".  Prints each problem as a TAP
comment ("# json_lint: ..."); exit 1 if any, 2 on a usage error.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))
JSON_MD = os.path.join(TOP, "Documentation", "JSON.md")
JSON_H = os.path.join(TOP, "user", "output", "json_schema.h")

DOCS = ("list", "status", "faults", "info", "policy", "monitor", "verify",
        "nccl-check", "env", "doctor")
KINDS = ("enum", "name", "text", "path", "pci", "hex", "time")

FORMATS = {
    "enum": re.compile(r"[a-z0-9_]+\Z"),
    "name": re.compile(r"\S+\Z"),
    "pci": re.compile(r"[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]\Z"),
    "hex": re.compile(r"0x[0-9a-f]+\Z"),
    "time": re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?"
                       r"[+-]\d\d:\d\d\Z"),
}
KEY = re.compile(r"[a-z][a-z0-9_]*\Z")


def schema_number():
    with open(JSON_H) as f:
        m = re.search(r"^#define\s+P2PMAP_JSON_SCHEMA\s+(\d+)\s*$", f.read(),
                      re.M)
    if not m:
        sys.exit("json_lint: no P2PMAP_JSON_SCHEMA in %s" % JSON_H)
    return int(m.group(1))


def fields(doc):
    """{path: (kind, values)} from the section ## DOC of JSON.md."""
    out, section = {}, None
    with open(JSON_MD) as f:
        for line in f:
            if line.startswith("## "):
                section = line[3:].strip()
                continue
            if section != doc or not line.startswith("|"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 2 or cells[1] not in KINDS:
                continue
            values = re.findall(r"`([^`]*)`", cells[2]) \
                if cells[1] == "enum" and len(cells) > 2 else []
            for path in re.findall(r"`([^`]+)`", cells[0]):
                out[path] = (cells[1], values)
    if not out:
        sys.exit("json_lint: no string fields for \"%s\" in %s" %
                 (doc, JSON_MD))
    return out


def check(doc_fields, value, path, where, problems):
    if isinstance(value, dict):
        is_map = any(p.startswith(path + ".*") for p in doc_fields)
        for k, v in value.items():
            if not is_map and not KEY.match(k):
                problems.append("%s: key %r of %s is not snake_case" %
                                (where, k, path or "the document"))
            sub = path + ".*" if is_map else (path + "." if path else "") + k
            check(doc_fields, v, sub, where, problems)
    elif isinstance(value, list):
        for v in value:
            check(doc_fields, v, path + "[]", where, problems)
    elif isinstance(value, str):
        if path not in doc_fields:
            problems.append("%s: %s = %r: a string field JSON.md does not "
                            "list" % (where, path, value))
            return
        kind, values = doc_fields[path]
        fmt = FORMATS.get(kind)
        if fmt and not fmt.match(value):
            problems.append("%s: %s = %r is not a%s %s" %
                            (where, path, value,
                             "n" if kind[0] in "aeiou" else "", kind))
        elif kind == "enum" and value not in values:
            problems.append("%s: %s = %r is not one of JSON.md's values %s"
                            % (where, path, value, " ".join(values)))


def lint(doc, lines, name, problems):
    doc_fields = fields(doc)
    schema = schema_number()
    n = 0
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        n += 1
        where = "%s:%d" % (name, i)
        try:
            pairs = json.loads(line, object_pairs_hook=lambda p: p)
        except ValueError as e:
            problems.append("%s: not JSON: %s" % (where, e))
            continue
        if not isinstance(pairs, list) or line.lstrip()[0] != "{":
            problems.append("%s: not a JSON object" % where)
            continue
        if not pairs or pairs[0][0] != "schema" or \
                type(pairs[0][1]) is not int or pairs[0][1] != schema:
            problems.append("%s: the first key is not \"schema\": %d: %s" %
                            (where, schema, line.strip()[:60]))
        check(doc_fields, json.loads(line), "", where, problems)
    if not n:
        problems.append("%s: no document" % name)


def main(argv):
    if len(argv) < 2 or argv[1] not in DOCS:
        sys.stderr.write("usage: json_lint.py {%s} [FILE...]\n" %
                         "|".join(DOCS))
        return 2
    problems = []
    for path in argv[2:] or ["-"]:
        if path == "-":
            lint(argv[1], sys.stdin.read().splitlines(), "<stdin>", problems)
        else:
            with open(path) as f:
                lint(argv[1], f.read().splitlines(), path, problems)
    for p in sorted(set(problems), key=problems.index):
        print("# json_lint: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

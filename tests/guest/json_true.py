"""json_true.py EXPR < JSON: exit 0 if the Python expression EXPR is true
for the parsed document d (a parse error is a failure too)."""
import json
import sys

d = json.load(sys.stdin)
sys.exit(0 if eval(sys.argv[1], {"d": d}) else 1)

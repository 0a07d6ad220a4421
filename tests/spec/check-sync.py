#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check-sync.py HEADER YAML: check that the UAPI header and the YNL spec of
the p2pmap generic netlink family agree.

Compared: every #define (value), every enum and enum value (names and
numeric values, computed the C way), every attribute (name, value, the type
given by the header's trailing comment, nested set, enum), every command,
the multicast groups, the family name and version.  Exit 0 when they agree,
1 with one line per mismatch otherwise, 2 on usage or parse errors.
"""
import re
import sys

try:
    import yaml
except ImportError:
    sys.exit("check-sync: needs PyYAML (Debian: python3-yaml)")

TYPES = ('u8', 'u16', 'u32', 'u64', 's8', 's16', 's32', 's64', 'string',
         'nest', 'flag', 'binary', 'uint', 'sint')


def c_name(name):
    return name.upper().replace('-', '_')


# ---- the header ------------------------------------------------------------

def strip_comments(text):
    return re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)


def c_eval(expr, env):
    """Evaluate a simple C integer/string constant expression."""
    expr = strip_comments(expr).strip()
    if re.fullmatch(r'"[^"]*"', expr):
        return expr[1:-1]
    py = re.sub(r'\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\b', r'\1', expr)

    def sub(m):
        if m.group(0) not in env:
            raise KeyError(m.group(0))
        return '(%r)' % (env[m.group(0)],)
    py = re.sub(r'\b[A-Za-z_]\w*\b', sub, py)
    if not re.fullmatch(r"[\s0-9a-fA-FxX()<>|&+\-~*']*", py):
        raise ValueError(expr)
    return eval(py, {'__builtins__': {}})


def parse_header(path):
    text = open(path).read()
    env = {}        # every name -> value (defines and enumerators)
    defines = {}    # name -> value
    enums = {}      # enum name -> [(entry, value, comment)]
    # Defines, in order (a define may use an enumerator: parse enums first).
    body = text
    for m in re.finditer(r'enum\s+(\w+)\s*\{(.*?)\}\s*;', text, re.S):
        entries = []
        val = -1
        # keep comments: split the body in lines, join continuation comments
        items = re.findall(r'(\w+)\s*(?:=\s*([^,/]+?))?\s*,?[ \t]*(/\*.*?\*/)?',
                           re.sub(r'^\s*/\*.*?\*/', '', m.group(2), flags=re.S | re.M),
                           re.S)
        for name, expr, comment in items:
            if not name:
                continue
            val = c_eval(expr, env) if expr else val + 1
            env[name] = val
            comment = re.sub(r'\s+', ' ', comment[2:-2]).strip() if comment else ''
            entries.append((name, val, comment))
        enums[m.group(1)] = entries
    for m in re.finditer(r'^#define\s+(\w+)[ \t]+(.+?)\s*$', body, re.M):
        name, expr = m.group(1), m.group(2)
        if name.startswith('_UAPI'):
            continue
        try:
            env[name] = defines[name] = c_eval(expr, env)
        except (KeyError, ValueError, SyntaxError) as e:
            sys.exit(f'check-sync: {path}: cannot evaluate #define {name} {expr}')
    return defines, enums


def comment_hint(comment):
    """(type, other words) from a trailing comment like 'u64, bus address'."""
    words = re.findall(r'[\w-]+', comment)
    if words and words[0] in TYPES:
        return words[0], words[1:]
    return None, words


# ---- the comparison ----------------------------------------------------------

class Checker:
    def __init__(self, hdr, spec):
        self.hdr, self.spec = hdr, spec
        self.errors = []
        self.defines, self.enums = parse_header(hdr)
        self.y = yaml.safe_load(open(spec))
        self.fam = c_name(self.y['name'])
        self.used_defines = set()
        self.used_enums = set()

    def err(self, msg):
        self.errors.append(msg)

    def define(self, name, want, what):
        self.used_defines.add(name)
        if name not in self.defines:
            self.err(f'{what}: #define {name} missing from the header')
        elif self.defines[name] != want:
            self.err(f'{what}: {name} is {self.defines[name]!r} in the header, '
                     f'{want!r} in the spec')

    def enum(self, cname, want, what, extra=()):
        """Compare header enum CNAME with WANT [(name, value)]; EXTRA are
        header entries that are expected and not in WANT (UNSPEC, __MAX)."""
        self.used_enums.add(cname)
        if cname not in self.enums:
            self.err(f'{what}: enum {cname} missing from the header')
            return None
        have = {n: v for n, v, _ in self.enums[cname]}
        wantd = dict(want)
        for n, v in want:
            if n not in have:
                self.err(f'{what}: {n} (= {v}) missing from enum {cname} in the header')
            elif have[n] != v:
                self.err(f'{what}: {n} is {have[n]} in the header, {v} in the spec')
        for n, v, _ in self.enums[cname]:
            if n not in wantd and n not in extra:
                self.err(f'{what}: enum {cname} entry {n} (= {v}) is not in the spec')
        return {n: c for n, _, c in self.enums[cname]}

    def max_pair(self, cnt, mx, last, what):
        """__X_MAX enumerator = last + 1, #define X_MAX (__X_MAX - 1)."""
        if cnt in self.defines:     # max-by-define style
            self.define(cnt, last + 1, what)
        self.define(mx, last, what)

    def run(self):
        y = self.y
        # family
        self.define(c_name(y.get('c-family-name', self.fam + '-family-name')),
                    y['name'], 'family name')
        self.define(c_name(y.get('c-version-name', self.fam + '-family-version')),
                    y.get('version', 1), 'family version')

        # definitions
        self.set_names = {}
        for d in y.get('definitions', []):
            what = f"definition {d['name']}"
            if d['type'] == 'const':
                self.define(c_name(self.fam + '-' + d['name']), d['value'], what)
                continue
            prefix = c_name(d.get('name-prefix', f"{y['name']}-{d['name']}-"))
            ename = d.get('enum-name', f"{y['name']}-{d['name']}")
            entries, val = [], d.get('value-start', 0) - 1
            for e in d['entries']:
                e = e if isinstance(e, dict) else {'name': e}
                val = e.get('value', val + 1)
                v = 1 << val if d['type'] == 'flags' else val
                entries.append((prefix + c_name(e['name']), v))
            cname = ename.replace('-', '_') if ename else None
            if d['type'] == 'flags' and (not cname or cname not in self.enums):
                # flags as #define masks, as the header writes them
                for n, v in entries:
                    self.define(n, v, what)
            else:
                self.enum(cname, entries, what)

        # attribute sets
        sets = {s['name']: s for s in y['attribute-sets']}
        for s in y['attribute-sets']:
            what = f"attribute-set {s['name']}"
            prefix = c_name(s.get('name-prefix', f"{y['name']}-a-{s['name']}-"))
            ename = s.get('enum-name', f"{y['name']}-{s['name']}-attrs")
            cname = ename.replace('-', '_')
            want, val = [], 0
            attrs = {}
            for a in s['attributes']:
                val = a.get('value', val + 1)
                n = prefix + c_name(a['name'])
                want.append((n, val))
                attrs[n] = a
            unspec = prefix + 'UNSPEC'
            cnt = s.get('attr-cnt-name', '__' + prefix + 'MAX').replace('-', '_').upper()
            mx = s.get('attr-max-name', prefix + 'MAX').replace('-', '_').upper()
            comments = self.enum(cname, want, what, extra=(unspec, cnt))
            if comments is None:
                continue
            if unspec in comments and self.enums[cname][0][1] != 0:
                self.err(f'{what}: {unspec} is not 0')
            hv = {n: v for n, v, _ in self.enums[cname]}
            if cnt in hv and want and hv[cnt] != want[-1][1] + 1:
                self.err(f'{what}: {cnt} is {hv[cnt]}, want {want[-1][1] + 1}')
            if want:
                self.define(mx, want[-1][1], what)
            for n, a in attrs.items():
                if n not in comments:
                    continue
                self.attr_type(what, n, a, comments[n], sets)

        # operations
        ops = y['operations']
        prefix = c_name(ops.get('name-prefix', y['name'] + '-cmd-'))
        ename = ops.get('enum-name', y['name'] + '-cmd') or ''
        want, val = [], 0
        for op in ops['list']:
            val = op.get('value', val + 1)
            want.append((prefix + c_name(op['name']), val))
        cnt = c_name(y.get('cmd-cnt-name', '__' + prefix + 'MAX'))
        mx = c_name(y.get('cmd-max-name', prefix + 'MAX'))
        cname = ename.replace('-', '_')
        if self.enum(cname, want, 'operations',
                     extra=(prefix + 'UNSPEC', cnt)) is not None and want:
            hv = {n: v for n, v, _ in self.enums[cname]}
            if cnt in hv and hv[cnt] != want[-1][1] + 1:
                self.err(f'operations: {cnt} is {hv[cnt]}, want {want[-1][1] + 1}')
            self.define(mx, want[-1][1], 'operations')

        # multicast groups
        for g in y.get('mcast-groups', {}).get('list', []):
            n = c_name(g.get('c-define-name', f"{y['name']}-mcgrp-{g['name']}"))
            self.define(n, g['name'], f"mcast group {g['name']}")

        # what the header has and the spec does not describe
        for n, v in self.defines.items():
            if n not in self.used_defines:
                self.err(f'header: #define {n} ({v!r}) is not in the spec')
        for n in self.enums:
            if n not in self.used_enums:
                self.err(f'header: enum {n} is not in the spec')
        return self.errors

    def attr_type(self, what, n, a, comment, sets):
        ytype = a.get('type')
        htype, words = comment_hint(comment)
        m = re.search(r'\b(\w+_)\*', comment)
        if m:       # "u32, P2PMAP_FAULT_F_*": a flags definition
            d = next((d for d in self.y.get('definitions', [])
                      if d['name'] == a.get('enum')), None)
            pfx = c_name(d.get('name-prefix', f"{self.y['name']}-{d['name']}-")) if d else None
            if not d or d['type'] != 'flags' or pfx != m.group(1):
                self.err(f'{what}: {n} holds {m.group(1)}* flags in the header, '
                         f'enum {a.get("enum")} in the spec')
        if ytype == 'pad':
            if htype or not n.endswith('_PAD'):
                self.err(f'{what}: {n} is type pad in the spec, '
                         f'"{comment}" in the header')
            return
        if htype is None:
            if comment:
                self.err(f'{what}: {n}: no type in header comment "{comment}"')
            return
        if htype != ytype:
            self.err(f'{what}: {n} is {htype} in the header, {ytype} in the spec')
        if htype == 'nest':
            nested = sets.get(a.get('nested-attributes'), {})
            ename = nested.get('enum-name', f"{self.y['name']}-{a.get('nested-attributes')}-attrs")
            if words and words[0] != (ename or '').replace('-', '_'):
                self.err(f'{what}: {n} nests {words[0]} in the header, '
                         f'{a.get("nested-attributes")} ({ename}) in the spec')
            if ('repeated' in words) != bool(a.get('multi-attr')):
                self.err(f'{what}: {n}: repeated in the header and multi-attr '
                         f'in the spec disagree')
        if 'enum' in words:
            i = words.index('enum')
            hname = words[i + 1] if i + 1 < len(words) else ''
            d = next((d for d in self.y.get('definitions', [])
                      if d['name'] == a.get('enum')), None)
            yname = (d.get('enum-name', f"{self.y['name']}-{d['name']}")
                     if d else '') or ''
            if hname != yname.replace('-', '_'):
                self.err(f'{what}: {n} is enum {hname} in the header, '
                         f'enum {a.get("enum")} in the spec')


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    try:
        errors = Checker(sys.argv[1], sys.argv[2]).run()
    except (OSError, KeyError, TypeError, AttributeError, yaml.YAMLError) as e:
        sys.exit(f'check-sync: cannot read the spec or header: {e!r}')
    for e in errors:
        print(f'check-sync: {e}', file=sys.stderr)
    if errors:
        print(f'check-sync: {len(errors)} mismatch(es) between {sys.argv[1]} '
              f'and {sys.argv[2]}', file=sys.stderr)
        sys.exit(1)
    print(f'check-sync: {sys.argv[1]} and {sys.argv[2]} agree')


if __name__ == '__main__':
    main()

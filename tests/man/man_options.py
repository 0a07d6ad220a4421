#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The options a man page gives each command: from the synopsis line after
each .TP of its COMMANDS section (p2pmap.8) and from its SYNOPSIS, one form
a line between .br, "p2pmap" dropped (p2pmap-CMD.8); every option the page
names anywhere; the options its OPTIONS section describes.

    man_options.py PAGE             "COMMAND OPTION" per line
    man_options.py --all PAGE       every long option named, one per line
    man_options.py --synopsis PAGE  the synopsis lines as plain text
    man_options.py --options PAGE   the options of OPTIONS' .TP headings
"""
import re
import sys

OPT = re.compile(r'(?<![\w-])(--?[a-z][a-z0-9]*(?:-[a-z0-9]+)*)')


def plain(line):
    """A groff line as text: no fonts, no macro, no quotes, '-' for \\-."""
    line = re.sub(r'\\f[BIRP]', '', line).replace('\\-', '-')
    line = re.sub(r'^\.(B|I|BI|BR|IR|RB|RI|IB)\s', '', line)
    return line.replace('"', ' ')


def section(lines, name):
    """The lines of section NAME, without its .SH; [] without one."""
    if '.SH ' + name not in lines:
        return []
    start = lines.index('.SH ' + name) + 1
    end = next((i for i in range(start, len(lines))
                if lines[i].startswith('.SH ')), len(lines))
    return lines[start:end]


def forms(lines):
    """Each command form as its words: COMMANDS' .TP headings, SYNOPSIS'
    lines between .br that start with "p2pmap" and a command."""
    out = []
    sec = section(lines, 'COMMANDS')
    for i in range(len(sec) - 1):
        if sec[i] == '.TP':
            out.append(plain(sec[i + 1]).split())
    words = []
    for line in section(lines, 'SYNOPSIS') + ['.br']:
        if line.startswith('.') and not re.match(r'\.(B|I|BI|BR|IR|RB|RI|IB)\s', line):
            if words[:1] == ['p2pmap']:
                out.append(words[1:])
            words = []
            continue
        words += plain(line).split()
    return [w for w in out if w and re.match(r'[a-z][a-z-]*$', w[0])]


def main(argv):
    lines = open(argv[-1], encoding='utf-8').read().split('\n')
    if argv[1] == '--all':
        found = {o for line in lines for o in OPT.findall(plain(line))
                 if o.startswith('--')}
        print('\n'.join(sorted(found)))
        return 0
    if argv[1] == '--options':
        sec = section(lines, 'OPTIONS')
        for i in range(len(sec) - 1):
            if sec[i] == '.TP':
                print('\n'.join(OPT.findall(plain(sec[i + 1]))[:1]))
        return 0
    for words in forms(lines):
        if argv[1] == '--synopsis':
            print(' '.join(words))
            continue
        for opt in OPT.findall(' '.join(words[1:])):
            print(words[0], opt)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

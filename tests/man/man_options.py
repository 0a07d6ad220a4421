#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The options p2pmap.8 gives each command, from the synopsis line after
each .TP of its COMMANDS section, and every option the page names anywhere.

    man_options.py PAGE          "COMMAND OPTION" per line
    man_options.py --all PAGE    every long option named, one per line
    man_options.py --synopsis PAGE  the synopsis lines as plain text
"""
import re
import sys

OPT = re.compile(r'(?<![\w-])(--?[a-z][a-z0-9]*(?:-[a-z0-9]+)*)')


def plain(line):
    """A groff line as text: no fonts, no macro, no quotes, '-' for \\-."""
    line = re.sub(r'\\f[BIRP]', '', line).replace('\\-', '-')
    line = re.sub(r'^\.(B|I|BI|BR|IR|RB|RI|IB)\s', '', line)
    return line.replace('"', ' ')


def main(argv):
    every = argv[1] == '--all'
    lines = open(argv[-1], encoding='utf-8').read().split('\n')
    if every:
        found = {o for line in lines for o in OPT.findall(plain(line))
                 if o.startswith('--')}
        print('\n'.join(sorted(found)))
        return 0
    start = lines.index('.SH COMMANDS')
    end = next(i for i in range(start + 1, len(lines))
               if lines[i].startswith('.SH '))
    for i in range(start, end - 1):
        if lines[i] != '.TP':
            continue
        words = plain(lines[i + 1]).split()
        if not words or not re.match(r'[a-z][a-z-]*$', words[0]):
            continue
        if argv[1] == '--synopsis':
            print(' '.join(words))
            continue
        for opt in OPT.findall(' '.join(words[1:])):
            print(words[0], opt)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

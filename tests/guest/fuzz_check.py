"""fuzz_check.py: the fuzz suite's view of the state (tests/guest/fuzz.sh).

  fuzz_check.py strip FILE.json...
      each document without its fault counters (every key naming a fault),
      keys sorted, one line each: what must not change when nothing does
  fuzz_check.py invariants STATUS.json LIST.json XLATEM DEV...
      for every ordered pair of DEV...: p2pmap says mapped (a mapped link
      whose ranges hold the target's BAR0) exactly when the IOMMU
      translates the target's BAR0 to itself in the initiator's domain
      (XLATEM, p2ptest's one-line answer); and every link is in a state
      its devices allow.  Prints each violation, exit 1 if any.
"""
import json
import sys


def strip(d):
    if isinstance(d, dict):
        return {k: strip(v) for k, v in d.items() if 'fault' not in k}
    if isinstance(d, list):
        return [strip(v) for v in d]
    return d


def says_mapped(link):
    return link.get('state') == 'mapped' and any(
        r.get('bar') == 0 for r in link.get('ranges') or [])


def link_ok(link, devs):
    """Why the link's state does not fit its devices, or None."""
    ends = [devs.get(link['initiator']), devs.get(link['target'])]
    state = link.get('state')
    present = [d is not None and d.get('tracked') is not False for d in ends]
    bound = [p and d.get('driver') is not None for p, d in zip(present, ends)]
    admitted = [b and d.get('admitted') is True for b, d in zip(bound, ends)]
    if state == 'mapped' and not all(admitted):
        return 'mapped, but a side is absent, unbound or not admitted'
    if state == 'pending' and all(bound):
        return 'pending, but both sides are present and bound'
    if state == 'blocked' and all(admitted) and all(
            d.get('group_type') in ('DMA', 'DMA-FQ') for d in ends):
        return 'blocked, but both sides are admitted on default domains'
    if state not in ('mapped', 'pending', 'blocked', 'native', 'error'):
        return 'unknown state %r' % state
    if state != 'mapped' and (link.get('mapped_bytes') or link.get('ranges')):
        return '%s, but %s bytes mapped' % (state, link.get('mapped_bytes'))
    return None


def invariants(status_file, list_file, xlatem, devices):
    status = json.load(open(status_file))
    listing = json.load(open(list_file))
    devs = {d['address']: d for d in listing['devices']}
    links = {(l['initiator'], l['target']): l for l in status['links']}
    bad = 0
    n = 0
    for i in devices:
        for t in devices:
            if i == t:
                continue
            got = xlatem[n] if n < len(xlatem) else '?'
            n += 1
            if got == '-':
                continue
            says = says_mapped(links.get((i, t), {}))
            if (got == '1') != says:
                print('# %s -> %s: the IOMMU translates %s, p2pmap says %s'
                      % (i, t, got, 'mapped' if says else 'not mapped'))
                bad += 1
    for link in status['links']:
        why = link_ok(link, devs)
        if why:
            print('# link %s -> %s: %s (reason: %s)' % (
                link['initiator'], link['target'], why, link.get('reason')))
            bad += 1
    print('# %d links, %d pairs checked, %d violations' % (
        len(status['links']), n, bad))
    return 1 if bad else 0


def main():
    if sys.argv[1] == 'strip':
        for name in sys.argv[2:]:
            print(json.dumps(strip(json.load(open(name))), sort_keys=True))
        return 0
    if sys.argv[1] == 'invariants':
        return invariants(sys.argv[2], sys.argv[3], sys.argv[4],
                          sys.argv[5:])
    return 2


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
# iommu-layout.py TREE [GUARD]: does the kernel source in TREE still have
# the private layout kmod/iova_guard.c (GUARD) relies on?  p2pmap reads the
# DMA API's IOVA domain out of dma-iommu.c's private struct
# iommu_dma_cookie and edits iova.c's tree by hand; the compiler sees
# neither, so a kernel that moves a field would only show up on a user's
# host (where the module fails closed: it refuses to map).  Checked:
#   - the head of struct iommu_dma_cookie (dma-iommu.c) against kmod's
#     mirror: struct p2pmap_cookie_head before 6.15, "iovad first" from
#     6.15 on (the domain's cookie_type, include/linux/iommu.h), and that
#     IOMMU_DMA_IOVA_COOKIE is 0 / IOMMU_COOKIE_DMA_IOVA means that cookie
#   - iova.c's IOVA_ANCHOR against P2PMAP_IOVA_ANCHOR
#   - iova.c's __cached_rbnode_delete_update(), which p2pmap_iova_move()
#     repeats, against the digest of the version it was written from
#   - every struct iova_domain / struct iova field kmod reads is in iova.h
# TREE needs drivers/iommu/{dma-iommu.c,iova.c} and
# include/linux/{iova.h,iommu.h}.  Prints "# " notes and one "FAIL: " line
# per problem; exits 1 on any.  A C parser is not needed: the structs are
# plain declarations, and comments, attributes and whitespace are dropped.
import hashlib
import os
import re
import sys

# __cached_rbnode_delete_update() as p2pmap_iova_move() copies it (Linux
# 6.1 to 7.3 and both Proxmox trees): comments and whitespace dropped.
DELETE_UPDATE_DIGEST = "b82e5712c7fd2f4a"

problems = []


def fail(msg):
    problems.append(msg)
    print("FAIL: " + msg)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def braced(text, start):
    """The text between the brace at or after start and its match."""
    i = text.index("{", start)
    depth = 0
    for j in range(i, len(text)):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        if depth == 0:
            return text[i + 1:j]
    raise ValueError("unbalanced braces")


def body(text, head):
    """The body of the first definition that starts with regex head."""
    m = re.search(head, text, flags=re.M)
    return braced(text, m.end() - 1) if m else None


def members(block):
    """[(type, name)] or [("union"|"struct", [members], name)], in order."""
    out, i = [], 0
    while i < len(block):
        m = re.match(r"\s*(union|struct)\s*\{", block[i:])
        if m:
            inner = braced(block, i)
            end = block.index(inner, i) + len(inner) + 1
            tail = re.match(r"\s*(\w*)\s*;", block[end:])
            out.append((m.group(1), members(inner), tail.group(1)))
            i = end + tail.end()
            continue
        j = block.find(";", i)
        if j < 0:
            break
        decl = " ".join(block[i:j].replace("__percpu", " ").split())
        i = j + 1
        m = re.match(r"(.*?)([\s*]+)(\w+)(\[.*\])?$", decl)
        if m:
            out.append((" ".join((m.group(1) + m.group(2)).split()).
                        replace(" *", "*"), m.group(3)))
    return out


def head(mems, union=False):
    """The fields at the start of a struct, through anonymous members, and
    whether the walk stopped: a union's first member starts where the
    union does, what follows the union lines up with nothing in a mirror."""
    out = []
    for m in mems[:1] if union else mems:
        if len(m) == 3 and not m[2]:
            fields, stop = head(m[1], m[0] == "union")
            out += fields
            if stop or m[0] == "union":
                return out, True
        elif len(m) == 3:
            out.append((m[0] + " {...}", m[2]))
        else:
            out.append(m)
    return out, False


def same_type(mirror, tree):
    # An enum whose values fit in an int is an int (kernel ABI, gcc).
    return mirror == tree or (mirror == "int" and tree.startswith("enum "))


def main():
    tree = sys.argv[1]
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    guard = read(sys.argv[2] if len(sys.argv) > 2 else
                 os.path.join(top, "kmod", "iova_guard.c"))
    dma = read(os.path.join(tree, "drivers/iommu/dma-iommu.c"))
    iova = read(os.path.join(tree, "drivers/iommu/iova.c"))
    iova_h = read(os.path.join(tree, "include/linux/iova.h"))
    iommu_h = read(os.path.join(tree, "include/linux/iommu.h"))

    cookie = body(dma, r"^struct iommu_dma_cookie\s*\{")
    if cookie is None:
        fail("dma-iommu.c has no struct iommu_dma_cookie")
        return
    got = head(members(cookie))[0]
    print("# struct iommu_dma_cookie starts with: " +
          ", ".join("%s %s" % f for f in got))

    if re.search(r"\bIOMMU_COOKIE_DMA_IOVA\b", iommu_h):
        # 6.15+: p2pmap_cookie_iovad() casts iova_cookie to the iovad.
        print("# the domain has a cookie_type: kmod casts iova_cookie "
              "to struct iova_domain")
        if not re.search(r"return\s*\(struct iova_domain \*\)\s*"
                         r"domain->iova_cookie;", guard):
            fail("kmod/iova_guard.c no longer casts iova_cookie: "
                 "update tests/iommu-layout.py with it")
        want = [("struct iova_domain", "iovad")]
        fn = body(dma, r"^\w[^;{]*\([^;{]*\)\s*\{(?=[^}]*?"
                  r"cookie_type\s*=\s*IOMMU_COOKIE_DMA_IOVA)")
        if not fn or not re.search(r"struct iommu_dma_cookie\s*\*\s*cookie\b", fn) \
                or not re.search(r"iova_cookie\s*=\s*cookie\s*;", fn):
            fail("IOMMU_COOKIE_DMA_IOVA is not set beside an "
                 "iova_cookie that is a struct iommu_dma_cookie")
    else:
        # Up to 6.14: kmod's struct p2pmap_cookie_head, type 0 the IOVA one.
        mirror = body(guard, r"^struct p2pmap_cookie_head\s*\{")
        if mirror is None:
            fail("kmod/iova_guard.c has no struct p2pmap_cookie_head")
            return
        want = members(mirror)
        print("# no cookie_type: kmod's struct p2pmap_cookie_head: " +
              ", ".join("%s %s" % f for f in want))
        enum = body(dma, r"^enum iommu_dma_cookie_type\s*\{")
        first = enum.split(",")[0].split() if enum else []
        if first != ["IOMMU_DMA_IOVA_COOKIE"] and \
                first != ["IOMMU_DMA_IOVA_COOKIE", "=", "0"]:
            fail("IOMMU_DMA_IOVA_COOKIE is not 0 in enum "
                 "iommu_dma_cookie_type (%s)" % " ".join(first))
    for i, (wtype, wname) in enumerate(want):
        if i >= len(got):
            fail("struct iommu_dma_cookie: no field %d (kmod: %s %s)"
                 % (i, wtype, wname))
        elif got[i][1] != wname or not same_type(wtype, got[i][0]):
            fail("struct iommu_dma_cookie: field %d is %s %s, kmod's mirror "
                 "has %s %s" % (i, got[i][0], got[i][1], wtype, wname))

    m = re.search(r"^#define\s+IOVA_ANCHOR\s+(.*)$", iova, flags=re.M)
    k = re.search(r"^#define\s+P2PMAP_IOVA_ANCHOR\s+(.*)$", guard, flags=re.M)
    norm = (lambda s: re.sub(r"[\s()]", "", s.group(1)) if s else None)
    print("# IOVA_ANCHOR %s, P2PMAP_IOVA_ANCHOR %s" % (norm(m), norm(k)))
    if not m or norm(m) != norm(k):
        fail("iova.c's IOVA_ANCHOR is not kmod's P2PMAP_IOVA_ANCHOR")

    fn = body(iova, r"^__cached_rbnode_delete_update\s*\(")
    digest = hashlib.sha256(" ".join((fn or "").split()).encode()). \
        hexdigest()[:16]
    print("# __cached_rbnode_delete_update digest " + digest)
    if digest != DELETE_UPDATE_DIGEST:
        fail("iova.c's __cached_rbnode_delete_update() changed (digest %s): "
             "p2pmap_iova_move() repeats it, review it and update "
             "DELETE_UPDATE_DIGEST" % digest)

    for struct, used in (
            ("iova_domain", set(re.findall(r"iovad->(\w+)", guard))),
            ("iova", set(re.findall(r"->(pfn_lo|pfn_hi)\b", guard)) |
             set(re.findall(r"&v->(\w+)", guard)))):
        decl = body(iova_h, r"^struct %s\s*\{" % struct)
        have = {f[-1] for f in members(decl or "")}
        missing = sorted(used - have)
        print("# struct %s: kmod reads %s" % (struct, " ".join(sorted(used))))
        if missing:
            fail("iova.h's struct %s has no %s" % (struct, " ".join(missing)))


if __name__ == "__main__":
    try:
        main()
    except (OSError, ValueError) as e:
        fail(str(e))
    sys.exit(1 if problems else 0)

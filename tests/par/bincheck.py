#!/usr/bin/env python3
"""bincheck.py [--any-order] BIN JSONL: the binary point file BIN
(runtime/FORMAT.md), decoded here from the format's description alone,
holds exactly the points of JSONL (`list --format jsonl`, in the same
order unless --any-order), value by value and type by type.  Exit status
0 when they agree; otherwise a line saying where not."""
import json
import struct
import sys


def decode(data):
    pos = 0

    def take(n):
        nonlocal pos
        if pos + n > len(data):
            raise ValueError("truncated at byte %d" % pos)
        b = data[pos:pos + n]
        pos += n
        return b

    def u(n):
        return int.from_bytes(take(n), "little")

    if take(8) != b"SPRTBIN1":
        raise ValueError("bad magic")
    if u(4) != 1 or u(4) != 0:
        raise ValueError("bad version or flags")
    take(u(2))                                   # the space's name
    ncols, nrows, nstr = u(4), u(8), u(4)
    strings = [take(u(4)).decode() for _ in range(nstr)]
    cols = []
    for _ in range(ncols):
        name = take(u(2)).decode()
        cols.append((name, u(1), u(1)))

    def scalar(kind, raw):
        # the tag of a mixed value: 1 None, 2 bool, 3 int, 4 float, 5 str
        if kind == 1:
            return None
        if kind == 2:
            return bool(int.from_bytes(raw, "little"))
        if kind == 3:
            return int.from_bytes(raw, "little", signed=True)
        if kind == 4:
            return struct.unpack("<d", raw)[0]
        if kind == 5:
            return strings[int.from_bytes(raw, "little")]
        raise ValueError("bad tag %d" % kind)

    rows = []
    for _ in range(nrows):
        row = {}
        for name, typ, width in cols:
            raw = take(width)
            if typ == 1:
                row[name] = int.from_bytes(raw, "little", signed=True)
            elif typ == 2:
                row[name] = struct.unpack("<d", raw)[0]
            elif typ == 3:
                row[name] = bool(raw[0])
            elif typ == 4:
                row[name] = strings[int.from_bytes(raw, "little")]
            elif typ == 5:
                row[name] = scalar(raw[0], raw[1:])
            else:
                raise ValueError("bad column type %d" % typ)
        rows.append(row)
    if pos != len(data):
        raise ValueError("%d bytes after the last row" % (len(data) - pos))
    return rows


def typed(row):
    return {k: (type(v).__name__, v) for k, v in row.items()}


def main():
    args = sys.argv[1:]
    any_order = args[:1] == ["--any-order"]
    if any_order:
        args = args[1:]
    with open(args[0], "rb") as f:
        got = decode(f.read())
    with open(args[1]) as f:
        want = [json.loads(line) for line in f if line.strip()]
    if any_order:
        def key(row):
            return json.dumps(typed(row), sort_keys=True)
        got.sort(key=key)
        want.sort(key=key)
    if len(got) != len(want):
        sys.exit("bincheck: %d rows in the binary file, %d points listed" % (len(got), len(want)))
    for i, (g, w) in enumerate(zip(got, want)):
        if typed(g) != typed(w):
            sys.exit("bincheck: row %d: %s, listed %s" % (i, g, w))


if __name__ == "__main__":
    main()

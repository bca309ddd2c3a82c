#!/usr/bin/env python3
"""h5attack.py ATTACK IN OUT [ARG] — a copy of the elastoprep file IN with one
defect an attacker would make (issue 22), written to OUT.  Used by
tests/cli/hardening.sh; each attack is one function below."""
import shutil
import sys

import h5py
import numpy as np


def attr_array(f, arg):
    """ARG "obj:name:n": attribute name of obj as an array of n vlen strings."""
    obj, name, n = arg.split(":")
    f[obj].attrs.create(name, [f[obj].attrs[name]] * int(n), dtype=h5py.string_dtype())


def attr_fixed_array(f, arg):
    """ARG "obj:name:n": the same with fixed-length strings."""
    obj, name, n = arg.split(":")
    v = f[obj].attrs[name]
    v = v if isinstance(v, bytes) else v.encode()
    f[obj].attrs.create(name, np.array([v] * int(n), dtype="S%d" % len(v)))


def unallocated(f, arg):
    """ARG "dataset:rows": replace dataset by a chunked one of the same row
    shape declaring rows rows, none of them written."""
    name, rows = arg.split(":")
    d = f[name]
    shape, dtype = (int(rows),) + d.shape[1:], d.dtype
    del f[name]
    f.create_dataset(name, shape=shape, dtype=dtype, chunks=(1,) + shape[1:], maxshape=(None,) + shape[1:])


def set_value(f, arg):
    """ARG "dataset:index:value": one entry (flat index) set to value."""
    name, i, v = arg.split(":")
    d = f[name]
    a = d[()]
    a.flat[int(i)] = float(v)
    d[...] = a


def set_attr(f, arg):
    """ARG "obj:name:value": a float attribute set."""
    obj, name, v = arg.split(":")
    f[obj].attrs[name] = float(v)


def empty(f, arg):
    """ARG dataset: replaced by one of no rows and the same row shape."""
    d = f[arg]
    shape, dtype = (0,) + d.shape[1:], d.dtype
    del f[arg]
    f.create_dataset(arg, shape=shape, dtype=dtype)


def replace(f, arg):
    """ARG "dataset:v0,v1,...:cols": the dataset replaced by these int32 rows."""
    name, vals, cols = arg.split(":")
    a = np.array([int(x) for x in vals.split(",")], dtype=np.int32).reshape(-1, int(cols))
    del f[name]
    f.create_dataset(name, data=a)


def scale(f, arg):
    """ARG "dataset:factor": every value multiplied."""
    name, k = arg.split(":")
    f[name][...] = f[name][()] * float(k)


def heap_corrupt(path, arg):
    """Bytes: the size of the first object of the global heap (where libhdf5
    keeps variable-length strings) set to ARG (default 2^31), so reading a
    string attribute copies past its buffer."""
    b = bytearray(open(path, "rb").read())
    at = b.find(b"GCOL")
    assert at >= 0, "no global heap"
    # collection: "GCOL", version, 3 reserved, size (8); objects from at+16:
    # index (2), refcount (2), reserved (4), size (8), data
    o = at + 16
    b[o + 8:o + 16] = int(arg or 2**31).to_bytes(8, "little")
    open(path, "wb").write(bytes(b))


ATTACKS = {f.__name__: f for f in (attr_array, attr_fixed_array, unallocated, set_value, set_attr, empty,
                                    replace, scale)}

if __name__ == "__main__":
    attack, src, dst = sys.argv[1:4]
    arg = sys.argv[4] if len(sys.argv) > 4 else ""
    shutil.copyfile(src, dst)
    if attack == "heap_corrupt":
        heap_corrupt(dst, arg)
    else:
        with h5py.File(dst, "r+") as f:
            ATTACKS[attack](f, arg)

"""xdmfcheck.py FILE.xmf — an XDMF sidecar is well-formed XML whose every HDF
item names a dataset of the file beside it with the extent it states, every
hyperslab lies inside it and selects as many values as the item's
Dimensions; prints the attribute names, one per line (tests/cli/xdmf.sh)."""
import os
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np

xmf = sys.argv[1]
root = ET.parse(xmf).getroot()
assert root.tag == "Xdmf" and root.get("Version") == "3.0", "not an XDMF 3 document"
folder = os.path.dirname(xmf) or "."
for item in root.iter("DataItem"):
    if item.get("Format") != "HDF":
        continue
    shown = [int(x) for x in item.get("Dimensions").split()]
    ref, _, slab = item.text.strip().partition("|")
    fname, _, dset = ref.partition(":")
    with h5py.File(os.path.join(folder, fname), "r") as f:
        d = f[dset]
        prec = int(item.get("Precision"))
        assert d.dtype.itemsize == prec, "%s: precision %d, stored %d" % (dset, prec, d.dtype.itemsize)
        if not slab:
            assert list(d.shape) == shown, "%s: Dimensions %s, stored %s" % (dset, shown, d.shape)
            continue
        start, stride, count, extent = [[int(x) for x in p.split()] for p in slab.split(":")]
        assert list(d.shape) == extent, "%s: extent %s, stored %s" % (dset, extent, d.shape)
        assert all(s + (c - 1) * t < e for s, t, c, e in zip(start, stride, count, extent)), "%s: slab outside" % dset
        assert np.prod(count) == np.prod(shown), "%s: slab of %s values shown as %s" % (dset, count, shown)
for a in root.iter("Attribute"):
    print(a.get("Name"))

#!/usr/bin/env python3
"""h5corpus.py FOLDER — the fixed corpus of the HDF5 fuzz target
(tests/fuzz/fuzz_h5.c), replayed by make check: for each seed kind, each of
its datasets with one mutation paired with one attribute mutation, every
mutation mode in turn, and a few byte flips.  Regenerate with
`python3 tests/fuzz/h5corpus.py tests/fuzz/h5corpus`."""
import os
import struct
import sys

# indices into fuzz_h5.c's attrs[] and dsets[]
MODEL_D = [0, 1, 2, 3, 4, 5, 6, 27]
KIND = {  # seed: (attributes, datasets)
    0: ([0, 1, 2], [0, 2, 3, 4, 6]),
    1: ([0, 1, 2, 3, 4, 5, 8, 9, 10, 11], MODEL_D + [7, 8, 9, 10, 39, 52]),
    2: ([0, 2, 3, 5, 6, 7, 8], [0, 2, 7, 8, 9] + list(range(11, 21))),
    3: ([0, 1, 2, 8, 9, 10], MODEL_D + [21, 22, 23]),
    4: ([0, 2, 8, 10], MODEL_D + [23, 24, 25, 26]),
    5: ([0, 2, 12, 13, 14, 15, 16], MODEL_D + [28, 29]),
    6: ([0, 2, 17, 18, 19, 20], MODEL_D + list(range(30, 39))),
    7: ([0, 2, 21, 22, 23], MODEL_D + list(range(40, 52)) + list(range(66, 72))),
    8: ([0, 2, 24, 25, 26], MODEL_D + [23, 53, 54, 55]),
    9: ([0, 2, 8, 10] + list(range(27, 35)), MODEL_D + list(range(56, 66))),
}
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
n = 0
for seed, (attrs, dsets) in KIND.items():
    inputs = []
    for i, d in enumerate(dsets):
        a = attrs[i % len(attrs)]
        inputs.append([(1, d, (i + seed) % 8, 100 + 7 * d, 12345 + d), (0, a, 1 + (i + a) % 7, 3 + a, 0x41424344)])
    for k in range(3):
        inputs.append([(2, 0, 0, 0xFF, 512 + 977 * k + 131 * seed)])
    for ops in inputs:
        rec = bytes([seed]) + b"".join(bytes(x % 256 for x in op[:4]) + struct.pack("<I", op[4]) for op in ops)
        name = "s%d-" % seed + "-".join("%d.%d.%d" % op[:3] for op in ops)
        with open(os.path.join(out, name), "wb") as f:
            f.write(rec)
        n += 1
print(n, "inputs in", out)

#!/usr/bin/python3
"""surfaces.py KIND OUT.obj [ARGS] — closed test surfaces as Wavefront files
for the scan tests (tests/cli/scan.sh, tests/bench/scan.sh), the same
constructions as tests/unit/surfaces.h:

  sphere OUT LEVELS          unit sphere: icosahedron, LEVELS midpoint splits
  torus OUT NU NW R r        torus sampled on an NU x NW grid
  genus2 OUT K SMOOTH        5 x 3 x 1 voxel slab without voxels (1,1), (3,1):
                             faces split K x K, SMOOTH umbrella steps
  bipyramid OUT N            two cones on an N-gon of the unit circle, apexes
                             (0, 0, +-1): N faces at each apex, so at most
                             360/N degrees at it where the surface is smooth
  defects IN OUT             IN with the defects clean-up repairs (every 7th
                             face reversed, the corners of every 5th face
                             duplicated, every 11th face twice, a zero-area
                             face per 13th), extras appended at the end
"""
import math
import sys


def write(path, v, f):
    with open(path, "w") as o:
        for x in v:
            o.write("v %.17g %.17g %.17g\n" % tuple(x))
        for t in f:
            o.write("f %d %d %d\n" % tuple(i + 1 for i in t))


def read(path):
    v, f = [], []
    for line in open(path):
        s = line.split()
        if s and s[0] == "v":
            v.append([float(c) for c in s[1:4]])
        elif s and s[0] == "f":
            f.append([int(c.split("/")[0]) - 1 for c in s[1:4]])
    return v, f


def sphere(levels):
    p = (1 + 5 ** 0.5) / 2
    v = [[-1, p, 0], [1, p, 0], [-1, -p, 0], [1, -p, 0], [0, -1, p], [0, 1, p],
         [0, -1, -p], [0, 1, -p], [p, 0, -1], [p, 0, 1], [-p, 0, -1], [-p, 0, 1]]
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
         (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
         (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    for _ in range(levels):
        mid, g = {}, []
        def m(a, b):
            k = (min(a, b), max(a, b))
            if k not in mid:
                mid[k] = len(v)
                v.append([(v[a][i] + v[b][i]) / 2 for i in range(3)])
            return mid[k]
        for a, b, c in f:
            ab, bc, ca = m(a, b), m(b, c), m(c, a)
            g += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        f = g
    v = [[c / math.sqrt(sum(x * x for x in p_)) for c in p_] for p_ in v]
    return v, f


def torus(nu, nw, R, r):
    v = [[(R + r * math.cos(2 * math.pi * j / nw)) * math.cos(2 * math.pi * i / nu),
          (R + r * math.cos(2 * math.pi * j / nw)) * math.sin(2 * math.pi * i / nu),
          r * math.sin(2 * math.pi * j / nw)] for i in range(nu) for j in range(nw)]
    f = []
    for i in range(nu):
        for j in range(nw):
            a, b = i * nw + j, ((i + 1) % nu) * nw + j
            c, d = ((i + 1) % nu) * nw + (j + 1) % nw, i * nw + (j + 1) % nw
            f += [(a, b, c), (a, c, d)]
    return v, f


def genus2(k, smooth):
    X, Y, Z = 5, 3, 1
    full = lambda x, y, z: 0 <= x < X and 0 <= y < Y and 0 <= z < Z and not (y == 1 and x in (1, 3))
    ids, v, f = {}, [], []
    for x in range(X):
        for y in range(Y):
            for z in range(Z):
                for d in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)):
                    if not full(x, y, z) or full(x + d[0], y + d[1], z + d[2]):
                        continue
                    a = 0 if d[0] else 1 if d[1] else 2
                    s = d[a] > 0
                    e1, e2 = (a + 1) % 3, (a + 2) % 3
                    if not s:
                        e1, e2 = e2, e1
                    for i in range(k):
                        for j in range(k):
                            q = []
                            for c in range(4):
                                g = [x * k, y * k, z * k]
                                g[a] += s * k
                                g[e1] += i + (c in (1, 2))
                                g[e2] += j + (c >= 2)
                                g = tuple(g)
                                if g not in ids:
                                    ids[g] = len(v)
                                    v.append([c_ / k for c_ in g])
                                q.append(ids[g])
                            f += [(q[0], q[1], q[2]), (q[0], q[2], q[3])]
    for _ in range(smooth):
        s = [[0.0] * 3 for _ in v]
        n = [0] * len(v)
        for t in f:
            for e in range(3):
                p, q = t[e], t[(e + 1) % 3]
                for c in range(3):
                    s[p][c] += v[q][c]
                    s[q][c] += v[p][c]
                n[p] += 1
                n[q] += 1
        v = [[v[i][c] + 0.5 * (s[i][c] / n[i] - v[i][c]) for c in range(3)] for i in range(len(v))]
    return v, f


def bipyramid(n):
    v = [[math.cos(2 * math.pi * i / n), math.sin(2 * math.pi * i / n), 0] for i in range(n)]
    v += [[0, 0, 1], [0, 0, -1]]
    f = [[i, (i + 1) % n, n] for i in range(n)] + [[(i + 1) % n, i, n + 1] for i in range(n)]
    return v, f


def defects(v, f):
    v, f = [list(x) for x in v], [list(t) for t in f]
    nv, nf = len(v), len(f)
    extra = []
    for t in range(nf):
        orig = list(f[t])
        if t % 5 == 0:
            for k in range(3):
                v.append(list(v[f[t][k]]))
                f[t][k] = len(v) - 1
        if t % 11 == 0:
            extra.append(list(f[t]))
        if t % 13 == 0:
            extra.append([orig[0], f[t][0], orig[1]])
        if t % 7 == 0:
            f[t][1], f[t][2] = f[t][2], f[t][1]
    return v, f + extra


if __name__ == "__main__":
    kind, out = sys.argv[1], sys.argv[2]
    a = sys.argv[3:]
    if kind == "sphere":
        write(out, *sphere(int(a[0])))
    elif kind == "torus":
        write(out, *torus(int(a[0]), int(a[1]), float(a[2]), float(a[3])))
    elif kind == "genus2":
        write(out, *genus2(int(a[0]), int(a[1])))
    elif kind == "bipyramid":
        write(out, *bipyramid(int(a[0])))
    elif kind == "defects":
        write(a[0], *defects(*read(out)))
    else:
        sys.exit("surfaces.py: unknown kind %s" % kind)

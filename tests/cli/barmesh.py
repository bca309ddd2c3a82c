#!/usr/bin/python3
"""barmesh.py NX NY NZ LX LY LZ ZONES OUT.msh: a box [0,LX]x[0,LY]x[0,LZ] of
NX x NY x NZ cubes, each cut into 6 tets along its main diagonal (Kuhn's
split, conforming across cubes), written as Gmsh 2.2 ASCII with the
physical tag of each tet = its zone: 1 + floor(ZONES x / LX) of the cube's
centre (zones.sh, tests/bench/zones.sh)."""
import itertools
import sys

nx, ny, nz = (int(a) for a in sys.argv[1:4])
lx, ly, lz = (float(a) for a in sys.argv[4:7])
zones = int(sys.argv[7])
out = sys.argv[8]


def vid(i, j, k):
    return 1 + i + (nx + 1) * (j + (ny + 1) * k)


pts = [(lx * i / nx, ly * j / ny, lz * k / nz) for k in range(nz + 1) for j in range(ny + 1) for i in range(nx + 1)]
tets = []
for k in range(nz):
    for j in range(ny):
        for i in range(nx):
            zone = 1 + min(zones - 1, int(zones * (i + 0.5) / nx))
            for perm in itertools.permutations(range(3)):
                c = [0, 0, 0]
                path = [vid(i, j, k)]
                for a in perm:
                    c[a] = 1
                    path.append(vid(i + c[0], j + c[1], k + c[2]))
                p = [pts[v - 1] for v in path]
                d = [[p[m][r] - p[0][r] for r in range(3)] for m in (1, 2, 3)]
                det = (d[0][0] * (d[1][1] * d[2][2] - d[1][2] * d[2][1]) - d[0][1] * (d[1][0] * d[2][2] - d[1][2] * d[2][0])
                       + d[0][2] * (d[1][0] * d[2][1] - d[1][1] * d[2][0]))
                if det < 0:
                    path[1], path[2] = path[2], path[1]
                tets.append((zone, path))
with open(out, "w") as f:
    f.write("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n%d\n" % len(pts))
    for n, (x, y, z) in enumerate(pts):
        f.write("%d %.17g %.17g %.17g\n" % (n + 1, x, y, z))
    f.write("$EndNodes\n$Elements\n%d\n" % len(tets))
    for e, (zone, v) in enumerate(tets):
        f.write("%d 4 2 %d %d %d %d %d %d\n" % (e + 1, zone, zone, *v))
    f.write("$EndElements\n")

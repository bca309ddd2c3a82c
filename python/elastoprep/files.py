"""Readers for every kind of elastoprep file (elastoprep(5)), on h5py.

read(path) loads the whole file into numpy arrays (File); the schema's
conveniences are properties that raise AttributeError on a kind without
them.  Vectors are interleaved (3 v + axis) in the files; the properties
return them shaped [..., nv, 3].
"""
import h5py
import numpy as np

KINDS = ("mesh", "gf", "gf-wavelet", "modes", "cubic", "embedding", "cubature")


def _attrs(obj):
    out = {}
    for k, v in obj.attrs.items():
        if isinstance(v, bytes):
            v = v.decode()
        elif isinstance(v, np.generic):
            v = v.item()
        out[k] = v
    return out


class File:
    """An elastoprep file read whole: kind, attrs (the root's), data (every
    dataset by path, numpy arrays), group_attrs (every group's attributes
    by path).  f["modes/U"] is f.data["modes/U"]."""

    def __init__(self, path):
        self.path = str(path)
        with h5py.File(self.path, "r") as h:
            self.attrs = _attrs(h)
            if self.attrs.get("format") != "elastoprep":
                raise ValueError("%s: not an elastoprep file (no format = elastoprep)" % self.path)
            self.kind = self.attrs.get("kind")
            if self.kind not in KINDS:
                raise ValueError("%s: unknown kind %r" % (self.path, self.kind))
            self.data, self.group_attrs = {}, {"": self.attrs}

            def visit(name, obj):
                if isinstance(obj, h5py.Dataset):
                    self.data[name] = obj[()]
                else:
                    self.group_attrs[name] = _attrs(obj)
            h.visititems(visit)

    def __getitem__(self, name):
        return self.data[name]

    def __contains__(self, name):
        return name in self.data

    def __repr__(self):
        return "<elastoprep %s %s: %d vertices>" % (self.kind, self.path, len(self.vertices))

    # --- every kind: the model ------------------------------------------------
    @property
    def vertices(self):
        return self.data["mesh/vertices"]

    @property
    def cells(self):
        """The volume elements (tets [ne][4] or hexes [nh][8]) or, for a
        surface, the triangles."""
        for k in ("mesh/tets", "mesh/hexes", "mesh/triangles"):
            if k in self.data:
                return self.data[k]
        raise KeyError("%s: no cells" % self.path)

    @property
    def material(self):
        """E, nu, rho: scalars (homogeneous) or per-element arrays; {} if none."""
        m = dict(self.group_attrs.get("material", {}))
        for k in ("E", "nu", "rho"):
            if "material/" + k in self.data:
                m[k] = self.data["material/" + k]
        return m

    @property
    def fixed(self):
        return self.data.get("constraints/fixed", np.zeros(0, dtype=np.int64))

    @property
    def bounding_box(self):
        v = self.vertices
        return v.min(axis=0), v.max(axis=0)

    def _need(self, *kinds):
        if self.kind not in kinds:
            raise AttributeError("%s is of kind %s, not %s" % (self.path, self.kind, " or ".join(kinds)))

    # --- modes, cubic ------------------------------------------------------------
    @property
    def eigenvalues(self):
        self._need("modes")
        return self.data["modes/eigenvalues"]

    @property
    def frequencies(self):
        """Hz: sqrt(lambda) / 2 pi (0 for the rigid modes of a free model)."""
        return np.sqrt(np.maximum(self.eigenvalues, 0)) / (2 * np.pi)

    @property
    def modes(self):
        """[k][nv][3] the mode shapes (mass-normalized)."""
        self._need("modes")
        U = self.data["modes/U"]
        return U.reshape(len(U), -1, 3)

    @property
    def basis(self):
        """[r][nv][3] the reduced basis U (u = sum_i q_i U_i)."""
        self._need("modes", "cubic", "embedding", "cubature")
        U = self.data["basis/U"]
        return U.reshape(len(U), -1, 3)

    def displacement(self, q):
        """[nv][3] u = U q for reduced coordinates q[r]."""
        self._need("modes", "cubic", "embedding", "cubature")
        return (np.asarray(q, float) @ self.data["basis/U"]).reshape(-1, 3)

    @property
    def cubic(self):
        """(P [r][r], Q [pairs][r], S [triples][r]): R(q) = P q + Q (q q) + S (q q q)."""
        self._need("cubic")
        return self.data["cubic/P"], self.data["cubic/Q"], self.data["cubic/S"]

    @property
    def cubature(self):
        """(elements [n] (0-based tet rows), weights [n]): R(q) ~ sum_k w_k U_e^T f_e(U_e q) (cubature(1))."""
        self._need("cubature")
        return self.data["cubature/elements"], self.data["cubature/weights"]

    # --- gf ------------------------------------------------------------------------
    @property
    def xi(self):
        """Dense GFs [3 m][3 n]: row 3 c + a is the response [n][3 interleaved]
        to a unit load along a at column c."""
        self._need("gf")
        return self.data["gf/xi"]

    def gf_column(self, c, a):
        """(rows [n] vertices, response [n][3], fixed [n] bool: tractions there)."""
        g = "gf/"
        if self.kind == "gf":
            u = self.data[g + "xi"][3 * c + a].reshape(-1, 3)
        else:
            self._need("gf", "gf-wavelet")
            u = self._gfw_column(c, a)
        return self.data[g + "row_vertex"], u, self.data.get(g + "row_fixed", np.zeros(len(u))) == 1

    def _gfw_column(self, c, a):  # elastoprep(5) READING WITH H5PY, the synthesis
        d = lambda k: self.data["gf/" + k]
        n = len(d("row_vertex"))
        x = np.zeros((n, 3))
        k0, k1 = d("colptr")[c], d("colptr")[c + 1]
        x[d("rowidx")[k0:k1]] = d("blocks")[k0:k1, :, a]
        lev, ptr, ps, pw = d("slot_level"), d("predict_ptr"), d("predict_slot"), d("predict_weight")
        ls, lw = d("lift_slot"), d("lift_weight")
        for l in range(1, lev.max() + 1):
            for s in np.flatnonzero(lev == l):
                for i in range(2):
                    if ls[s, i] >= 0:
                        x[ls[s, i]] -= lw[s, i] * x[s]
            for s in np.flatnonzero(lev == l):
                x[s] += pw[ptr[s]:ptr[s + 1]] @ x[ps[ptr[s]:ptr[s + 1]]]
        u = np.zeros((n, 3))
        u[d("slots")] = x
        return u

    # --- embedding -----------------------------------------------------------------
    @property
    def render_vertices(self):
        self._need("embedding")
        return self.data["render/vertices"]

    @property
    def weights(self):
        """(columns [nr][k], weights [nr][k]): render vertex i = sum_j w_ij x[c_ij]."""
        self._need("embedding")
        k = int(self.group_attrs["embedding"]["element_vertices"])
        return self.data["embedding/columns"].reshape(-1, k), self.data["embedding/weights"].reshape(-1, k)

    def render_displacement(self, u):
        """[nr][3] W u for simulation-mesh displacements u [nv][3]."""
        c, w = self.weights
        return np.einsum("ik,ikd->id", w, np.asarray(u, float).reshape(-1, 3)[c])


def read(path):
    """Read any elastoprep file (every kind) into a File."""
    return File(path)

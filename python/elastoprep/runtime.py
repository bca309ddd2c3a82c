"""ctypes binding of libelastoprep's runtime (libelastoprep(3), ffi.h):
capacitance-matrix contact on Green's functions and reduced implicit
Newmark on cubic polynomials, the two loops rtcheck times.

The library is found as: $ELASTOPREP_LIB (a path), the path `make install`
recorded, then the system's (libelastoprep.so.4 on the loader's path).
"""
import ctypes
import ctypes.util
import os

import numpy as np

SONAME = "libelastoprep.so.4"
_lib = None


class ElastoprepError(RuntimeError):
    """A runtime call failed; the message is libelastoprep's (ep_errmsg)."""


def library():
    """The loaded libelastoprep (ctypes.CDLL), loaded on first use."""
    global _lib
    if _lib is not None:
        return _lib
    tried = []
    names = [os.environ.get("ELASTOPREP_LIB")]
    try:
        from . import _libpath
        names.append(_libpath.LIB)
    except ImportError:
        pass
    names += [SONAME, ctypes.util.find_library("elastoprep")]
    for n in names:
        if not n:
            continue
        try:
            lib = ctypes.CDLL(n)
            break
        except OSError as e:
            tried.append("%s (%s)" % (n, e))
    else:
        raise ElastoprepError("libelastoprep not found: tried %s; set ELASTOPREP_LIB" % ", ".join(tried))
    P, I, D, V = ctypes.c_void_p, ctypes.c_int, ctypes.c_double, None
    dp, ip = ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_int)
    sig = {
        "ep_errmsg": (ctypes.c_char_p, []),
        "ep_ffi_contact_open": (P, [ctypes.c_char_p]),
        "ep_ffi_contact_close": (V, [P]),
        "ep_ffi_contact_rows": (I, [P]),
        "ep_ffi_contact_columns": (I, [P]),
        "ep_ffi_contact_set": (I, [P, ip, I]),
        "ep_ffi_contact_add": (I, [P, I]),
        "ep_ffi_contact_remove": (I, [P, I]),
        "ep_ffi_contact_size": (I, [P, ip]),
        "ep_ffi_contact_solve": (V, [P, dp, dp, dp, dp]),
        "ep_ffi_contact_force": (V, [P, dp, dp]),
        "ep_ffi_newmark_open": (P, [ctypes.c_char_p, D, D, D]),
        "ep_ffi_newmark_close": (V, [P]),
        "ep_ffi_newmark_r": (I, [P]),
        "ep_ffi_newmark_nv": (I, [P]),
        "ep_ffi_newmark_iterations": (V, [P, I, D]),
        "ep_ffi_newmark_start": (V, [P, dp, dp, dp]),
        "ep_ffi_newmark_step": (I, [P, dp]),
        "ep_ffi_newmark_state": (V, [P, dp, dp, dp]),
        "ep_ffi_newmark_basis": (dp, [P]),
        "ep_ffi_newmark_static": (I, [P, dp, dp, I, D, ip]),
        "ep_ffi_newmark_energy": (D, [P, dp]),
    }
    for name, (res, args) in sig.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    _lib = lib
    return lib


def _fail(what):
    raise ElastoprepError("%s: %s" % (what, library().ep_errmsg().decode()))


def _vec(x, n, name):
    """A C-contiguous float64 copy of x with n entries, or None."""
    if x is None:
        return None
    a = np.ascontiguousarray(x, dtype=np.float64).reshape(-1)
    if a.size != n:
        raise ValueError("%s: %d values, expected %d" % (name, a.size, n))
    return a


def _ptr(a, t=ctypes.c_double):
    return None if a is None else a.ctypes.data_as(ctypes.POINTER(t))


class _Handle:
    """An owner of one ffi handle: closed by close(), a with block or the
    collector; _h stays None until the open succeeds, so a failed open
    closes nothing."""

    _h = None
    _close = None  # the ep_ffi_*_close function's name

    def close(self):
        if self._h:
            getattr(library(), self._close)(self._h)
            self._h = None

    __del__ = close

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()


class Contact(_Handle):
    """Capacitance-matrix contact (000 §2.2-2.3) on a gf or gf-wavelet file.

    c = Contact("gf.h5"); c.set([5, 9]); p, v = c.solve(uS)  # uS [s][3]
    """

    _close = "ep_ffi_contact_close"

    def __init__(self, path):
        lib = library()
        self._h = lib.ep_ffi_contact_open(os.fsencode(str(path)))
        if not self._h:
            _fail(str(path))
        self.rows = lib.ep_ffi_contact_rows(self._h)
        self.columns = lib.ep_ffi_contact_columns(self._h)

    @property
    def nodes(self):
        s = library().ep_ffi_contact_size(self._h, None)
        out = np.zeros(s, dtype=np.intc)
        library().ep_ffi_contact_size(self._h, _ptr(out, ctypes.c_int))
        return out

    def set(self, nodes):
        """The contact set (GF rows), from scratch."""
        a = np.ascontiguousarray(nodes, dtype=np.intc)
        if library().ep_ffi_contact_set(self._h, _ptr(a, ctypes.c_int), len(a)):
            _fail("contact set")

    def add(self, node):
        if library().ep_ffi_contact_add(self._h, int(node)):
            _fail("add node %d" % node)

    def remove(self, node):
        if library().ep_ffi_contact_remove(self._h, int(node)):
            _fail("remove node %d" % node)

    def solve(self, uS, vbar=None):
        """Displacements uS [s][3] prescribed at the set, tractions vbar
        [n][3] elsewhere: (pS [s][3] tractions at the set, v [n][3] the
        solution: displacements at free nodes, tractions at the set and the
        fixed ones)."""
        s, n = library().ep_ffi_contact_size(self._h, None), self.rows
        u, vb = _vec(uS, 3 * s, "uS"), _vec(vbar, 3 * n, "vbar")
        p, v = np.zeros(3 * s), np.zeros(3 * n)
        library().ep_ffi_contact_solve(self._h, _ptr(u), _ptr(vb), _ptr(p), _ptr(v))
        return p.reshape(-1, 3), v.reshape(-1, 3)

    def force(self, pS):
        f = np.zeros(3)
        library().ep_ffi_contact_force(self._h, _ptr(_vec(pS, 3 * len(self.nodes), "pS")), _ptr(f))
        return f


class Newmark(_Handle):
    """Reduced implicit Newmark (001 §2.7) on a cubic file's polynomials.

    n = Newmark("cubic.h5", dt=1e-3); n.start(q0); n.step(); n.q
    """

    _close = "ep_ffi_newmark_close"

    def __init__(self, path, dt, alpha=0.0, beta=0.0, iterations=1, tol=0.0):
        lib = library()
        self._h = lib.ep_ffi_newmark_open(os.fsencode(str(path)), dt, alpha, beta)
        if not self._h:
            _fail(str(path))
        self.r = lib.ep_ffi_newmark_r(self._h)
        self.nv = lib.ep_ffi_newmark_nv(self._h)
        lib.ep_ffi_newmark_iterations(self._h, iterations, tol)

    def start(self, q0=None, qd0=None, f=None):
        r = self.r
        library().ep_ffi_newmark_start(self._h, _ptr(_vec(q0, r, "q0")), _ptr(_vec(qd0, r, "qd0")),
                                       _ptr(_vec(f, r, "f")))

    def step(self, f=None):
        if library().ep_ffi_newmark_step(self._h, _ptr(_vec(f, self.r, "f"))):
            _fail("Newmark step")

    def _state(self, k):
        out = [None, None, None]
        out[k] = np.zeros(self.r)
        library().ep_ffi_newmark_state(self._h, *[_ptr(o) for o in out])
        return out[k]

    q = property(lambda self: self._state(0))
    qd = property(lambda self: self._state(1))
    qdd = property(lambda self: self._state(2))

    @property
    def basis(self):
        """[r][3 nv] the basis U the file carries (a copy)."""
        p = library().ep_ffi_newmark_basis(self._h)
        return np.ctypeslib.as_array(p, shape=(self.r, 3 * self.nv)).copy()

    def displacement(self, q=None):
        """[nv][3] u = U q (q: the current state by default)."""
        return ((self.q if q is None else np.asarray(q, float)) @ self.basis).reshape(-1, 3)

    def static(self, f, q0=None, maxit=50, tol=1e-10):
        """Static equilibrium R(q) = f by Newton: (q, iterations)."""
        q = np.zeros(self.r) if q0 is None else _vec(q0, self.r, "q0").copy()
        it = ctypes.c_int(0)
        if library().ep_ffi_newmark_static(self._h, _ptr(_vec(f, self.r, "f")), _ptr(q), maxit, tol,
                                           ctypes.byref(it)):
            _fail("static solve")
        return q, it.value

    def energy(self, q):
        return library().ep_ffi_newmark_energy(self._h, _ptr(_vec(q, self.r, "q")))

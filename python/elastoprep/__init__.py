"""elastoprep: read the files elastoprep's tools write, and run its runtime.

    import elastoprep as ep
    m = ep.read("modes.h5")              # any kind: m.kind, m.attrs, m["modes/U"]
    m.frequencies                        # Hz, kind "modes"
    c = ep.Contact("gf.h5")              # capacitance-matrix contact (ctypes)
    n = ep.Newmark("cubic.h5", dt=1e-3)  # reduced implicit Newmark (ctypes)

Readers need h5py and numpy; the runtime needs libelastoprep.so (make
install, or ELASTOPREP_LIB naming the file).  See elastoprep-python(7).
"""
from .files import File, read
from .runtime import Contact, Newmark, ElastoprepError, library

__version__ = "0.1.0"
__all__ = ["File", "read", "Contact", "Newmark", "ElastoprepError", "library", "__version__"]

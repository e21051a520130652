"""hyperlayout for NumPy arrays: the library's fused re-layout engine.

    import hyperlayout as hl
    hl.flip(a, 0); hl.roll(a, (1, -1), (0, 1)); hl.transpose(a, (1, 0, 2))
    hl.crinkle(a, -1, 2); hl.tile(a, (8, 8)); hl.morton(a)
    hl.transform(a, "flip:0 shift:1,-1")         # the CLI's op grammar
    p = hl.Plan("flip:0 shift:1,-1", a.shape, a.dtype); p(a, out=a)

NumPy's axis numbering and results (np.flip, np.roll, np.transpose(...).copy());
see docs/python.md.
"""
from ._lib import HyperlayoutError, lib as _clib
from .functions import (crinkle, flip, morton, roll, tile, transform, transpose, uncrinkle,
                        unmorton, untile)
from .plan import Plan

__all__ = ["Plan", "HyperlayoutError", "flip", "roll", "crinkle", "uncrinkle", "transpose",
           "tile", "untile", "morton", "unmorton", "transform", "library_version",
           "isa_level"]


def library_version():
    """The version of the libhyperlayout loaded (hl_version())."""
    return _clib.hl_version().decode()


def isa_level():
    """The instruction-set level of the CPU kernels plans get now (hl_isa_name()):
    "avx512", "avx2", "sse2", "generic" (or "neon"); the environment's HL_ISA
    chooses it, else the best the CPU has; "invalid" when HL_ISA names a level
    this CPU or build lacks (plans then fail with its reason)."""
    return _clib.hl_isa_name().decode()


__version__ = library_version()

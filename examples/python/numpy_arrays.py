"""NumPy arrays through hyperlayout: the functions give NumPy's results.

    python3 numpy_arrays.py

Each call runs the library's engine on the array (one pass, the GIL
released) and returns a new array equal to what NumPy's own expression
gives; the script checks every one.
"""
import numpy as np
import hyperlayout as hl

rng = np.random.default_rng(1)
a = rng.random((64, 48, 3)).astype(np.float32)   # e.g. an RGB image

checks = {
    "flip": (hl.flip(a, (0, 1)), np.flip(a, (0, 1))),
    "roll": (hl.roll(a, (5, -2), (0, 1)), np.roll(a, (5, -2), (0, 1))),
    "transpose": (hl.transpose(a, (1, 0, 2)), np.transpose(a, (1, 0, 2))),
    # crinkle: the rows regrouped by residue mod 4 (the checkerboard layout)
    "crinkle": (hl.crinkle(a, 0, 4), np.concatenate([a[r::4] for r in range(4)], axis=0)),
    # a chain in the command line's grammar, fused into one pass
    "transform": (hl.transform(a, "flip:0 shift:1,3,0"), np.roll(np.flip(a, 0), (1, 3), (0, 1))),
}
for name, (got, want) in checks.items():
    assert got.dtype == want.dtype and got.shape == want.shape, name
    assert np.array_equal(got, want), name
    print(f"{name:10s} {str(got.shape):14s} equal to NumPy's")

# the inverse gives the array back
assert np.array_equal(hl.uncrinkle(hl.crinkle(a, 0, 4), 0, 4), a)
print("uncrinkle(crinkle(a)) == a")

"""A plan made once and run on many arrays of one shape and dtype.

    python3 reusable_plan.py

Planning analyses the chain of ops once; each run then only moves the
data.  A plan writes into an array you give it (out=), runs in place where
the ops allow it, and has an inverse.
"""
import numpy as np
import hyperlayout as hl

shape, dtype = (32, 40, 24), np.float64
p = hl.Plan("flip:0 permute:2,0,1", shape, dtype)     # NumPy's axes
print("output shape", p.out_shape)
print(p.describe())

out = np.empty(p.out_shape, dtype)
back = p.inverse()
rng = np.random.default_rng(2)
for step in range(5):                                 # one plan, many arrays
    a = rng.standard_normal(shape)
    p(a, out=out)                                     # no allocation
    assert np.array_equal(out, np.transpose(np.flip(a, 0), (2, 0, 1)))
    assert np.array_equal(back(out), a)

q = hl.Plan("flip:0 shift:1,-1,0", shape, dtype)      # these ops can run in place
a = rng.standard_normal(shape)
want = np.roll(np.flip(a, 0), (1, -1), (0, 1))
q(a, out=a)
assert np.array_equal(a, want)
print("5 arrays through one plan and its inverse, and one in place: all equal to NumPy's")

#!/bin/sh
# Converting and transforming .npy, .npz and HDF5 files from the shell.
#
#   sh convert.sh IN.npy [WORKDIR]
#
# IN.npy: any 2D or higher array NumPy saved (checkerboard writes one).
# Every step prints what it made; the last ones check the round trip.
# HDF5 steps run when this hyperlayout was built with HDF5.
set -eu
in=$1
work=${2:-convert-out}
mkdir -p "$work"

hyperlayout info "$in"

# NumPy's axes: the transpose of the last two axes, then a flip, one pass
hyperlayout transform --axes numpy "$in" "$work/t.npy" permute:1,0 flip:0
hyperlayout info "$work/t.npy" | grep 'numpy shape'

# into an .npz archive as member "spins", then a second member beside it
hyperlayout transform "$in" "$work/run.npz:spins" shift:3,0
hyperlayout transform "$work/t.npy" "$work/run.npz:transposed" permute:1,0
hyperlayout info "$work/run.npz"

# back: undoing each op gives the input again, byte for byte
hyperlayout transform "$work/run.npz:spins" "$work/back.npy" shift:-3,0
cmp "$in" "$work/back.npy"
echo "npz round trip: identical"

# HDF5: a dataset of a new file, another appended, read back
if hyperlayout transform "$in" "$work/run.h5:/lattice/spins" flip:0 2>"$work/h5.err"; then
    hyperlayout transform "$work/t.npy" "$work/run.h5:/lattice/t" permute:1,0 --h5-mode append
    hyperlayout info "$work/run.h5"
    hyperlayout transform "$work/run.h5:/lattice/spins" "$work/back.npy" flip:0
    cmp "$in" "$work/back.npy"
    echo "HDF5 round trip: identical"
else
    echo "no HDF5 in this build: $(cat "$work/h5.err")"
fi

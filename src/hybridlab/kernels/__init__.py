"""The C kernels: build (mpicc with the kit's flags, a content-hashed cache, Kernel) and c_cells
(a notebook cell's C, `%%c NAME [KERNEL]`, compiled at once with the same flags; whether it is
still the released stub; the headers a student's unit is compiled after).
"""

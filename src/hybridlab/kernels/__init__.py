"""The C kernels: build (mpicc with the kit's flags, a content-hashed cache, Kernel)."""

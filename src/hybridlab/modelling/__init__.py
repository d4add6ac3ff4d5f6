"""Lab 08, predicting at scale: a calibration of this machine kept as a small file (calibration),
the overlap model of 002 slide 42 (overlap), Amdahl inside a rank fitted to 000 Table 4.32
(amdahl), predictions of published tables and of the student's own runs (predict), the
interactive time breakdown (explorer) and the lab's pictures (plots). Only `exercise` runs
kernels; the rest compute from numbers.
"""

"""Lab 08, predicting at scale: a calibration of this machine kept as a small file (calibration),
the overlap model of Rabenseifner, slide 42 (overlap), Amdahl inside a rank fitted to Stathopoulos 2010, Table 4.32
(amdahl), predictions of published tables and of the student's own runs (predict), the
interactive time breakdown (explorer) and the lab's pictures (plots). Only `exercise` runs
kernels; the rest compute from numbers.
"""

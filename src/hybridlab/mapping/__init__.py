"""Lab 06, placement and topology: rank maps, cut links, NUMA straddling, time against cost.

`tables` computes (pure functions, nothing launched), `plots` draws, and only `exercise` runs
kernels (the student's own placements and the weak-scaling runs).
"""

"""Lab 05, memory and NUMA: STREAM bandwidth, saturation, first touch and page placement, who
computes on whose data, loop schedules and a roofline.

    tables    sizes, byte and flop counts, the tables built from the kernels' records (and
              page_owners: who first touched each page of an array traced with hl_touch.h)
    plots     the pictures (every effect this machine cannot show is labelled on the plot)
    exercise  the only module that runs kernels: the lab's measurements
"""

"""A run of a kernel or program and what is kept of it: run_path (the one run path: build ->
probe -> time -> parse -> Results), launch (run_program: a program under mpiexec), records
(Results and the JSON lines), metadata (a run's description), replay, own_runs and run_format
(the runs a notebook keeps and grading gives back), course_size (the problem size the course
grades at: quick or full), compliance (traced MPI calls judged against a thread level),
student_c (a student's C unit linked and run), traces (Chrome trace JSON) and stats.
"""

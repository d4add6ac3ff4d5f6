"""Topic: threads that communicate (lab 12). exercise: the student's MULTIPLE exchange and task
overlap on lab 04's grid (kernels_c/thread_halo.c), built and judged from the trace, and the
lab's runs; plots: the comparison with lab 04's variants beside the published numbers. A topic
imports the harness; the harness never imports a topic."""

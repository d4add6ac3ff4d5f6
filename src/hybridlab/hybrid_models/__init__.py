"""Topic: the hybrid programming models (lab 01). exercise: the lab's runs and the student's
exchange; tables: the thread-level table; plots: the taxonomy figure, the price of MULTIPLE and
the master race. A topic imports the harness; the harness never imports a topic."""

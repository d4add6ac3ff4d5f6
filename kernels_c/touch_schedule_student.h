/* Lab 05: the student's first-touch initialisation for touch_schedule.c. */
#ifndef TOUCH_SCHEDULE_STUDENT_H
#define TOUCH_SCHEDULE_STUDENT_H
#include "hybridlab.h"

/* Write every element of a and b (rows x cols, row-major) so that each page is first touched by
 * the thread that computes on it in the kernel's schedule(static, chunk) loop over rows. */
void init_arrays(double *a, double *b, long rows, long cols, long chunk);

#endif

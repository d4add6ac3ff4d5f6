/* A busy delay of EPCC syncbench's shape: an `int` counter, compiled in a unit of its own at
 * -O3 (EPCC's Makefile), so the timed code cannot inline it. Written here for the comparison in
 * delay_shape.c. */
#include <stdio.h>

void epcc_shape_delay(int length) {
    float a = 0.0f;
    for (int i = 0; i < length; i++) a += (float)i;
    if (a < 0.0f) printf("%f\n", a);
}

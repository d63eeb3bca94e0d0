#include <stdint.h>

struct point {
    int x, y;
};

/* Order the coordinates of p so that p->x <= p->y, without a branch:
   the xor difference is applied to both fields only when they are out of order. */
void point_sort(struct point *p)
{
    int x = p->x, y = p->y;
    int diff = (x ^ y) & -(x > y);

    p->x = x ^ diff;
    p->y = y ^ diff;
}

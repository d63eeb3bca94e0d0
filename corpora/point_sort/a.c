#include <stdint.h>

struct point {
    int x, y;
};

/* Order the coordinates of p so that p->x <= p->y. */
void point_sort(struct point *p)
{
    if (p->x > p->y) {
        int tmp = p->x;

        p->x = p->y;
        p->y = tmp;
    }
}

#include <stdint.h>

/* Nonzero when year is a leap year in the Gregorian calendar. */
int is_leap_year(unsigned year)
{
    return year % 4 == 0 && year % 100 != 0;    /* BUG: forgets the 400-year rule */
}

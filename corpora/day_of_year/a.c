#include <stdint.h>

/* Days in the year before the first of each month (non-leap year). */
int table[12] = { 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334 };

static int helper(int month_index)
{
    return table[month_index];
}

/* Ordinal day (1..366) of day/month, or -1 for a month or day out of range.
   Cumulative table. */
int day_of_year(int month, int day, int leap)
{
    int ordinal;

    if (month < 1 || month > 12 || day < 1 || day > 31)
        return -1;
    ordinal = helper(month - 1) + day;
    if (leap && month > 2)
        ordinal++;
    return ordinal;
}

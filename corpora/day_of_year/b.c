#include <stdint.h>

/* Length of each month (non-leap year). */
int table[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

/* Days in the months before month_index. */
static int helper(int month_index)
{
    int days = 0;

    for (int i = 0; i < month_index; i++)
        days += table[i];
    return days;
}

/* Ordinal day (1..366) of day/month, or -1 for a month or day out of range.
   Month lengths summed on the fly. */
int day_of_year(int month, int day, int leap)
{
    if (month < 1 || month > 12 || day < 1 || day > 31)
        return -1;
    return helper(month - 1) + day + (leap != 0 && month > 2);
}

int minmax(int a, int b, int c) {
    int d = a - b, s = d >> 31;            /* a < b when no overflow: callers assume small values */
    int lo = b + (d & s), hi = a - (d & s);
    int e = lo - c, t = e >> 31;
    int m = c + (e & t);
    int k = c >> 31;
    int abs_c = (c ^ k) - k;
    return (hi - m) ^ abs_c;
}

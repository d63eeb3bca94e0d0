int minmax(int a, int b, int c) {
    int lo = a < b ? a : b, hi = a < b ? b : a;
    int m = lo < c ? lo : c;
    int abs_c = c < 0 ? -c : c;
    return (hi - m) ^ abs_c;
}

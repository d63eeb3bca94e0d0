unsigned gcd(unsigned a, unsigned b) {
    if (a == 0) return b;
    if (b == 0) return a;
    int k = __builtin_ctz(a | b);
    a >>= __builtin_ctz(a);
    do { b >>= __builtin_ctz(b); if (a > b) { unsigned t = a; a = b; b = t; } b -= a; } while (b);
    return a << k;
}

int popcount(unsigned x) { int c = 0; for (int i = 31; i >= 0; i--) c += (x & (1u << i)) >> i; return c; }

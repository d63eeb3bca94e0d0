int popcount(unsigned x) { int c = 0; for (unsigned m = 1; m; m <<= 1) c += !!(x & m); return c; }

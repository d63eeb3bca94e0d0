int popcount(unsigned x) { int c = 0; for (int i = 0; i < 32; i++) if (x & (1u << i)) c++; return c; }

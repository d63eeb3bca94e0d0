int popcount(unsigned x) { int c = 0; while (x) { x &= x - 1; c++; } return c; }

/* Unsigned division by constants as written: x / 7, x / 10 and x % 7 (clang emits udiv/urem
   in the IR at every -O level; the multiply-high form is the x86 back end's). */
unsigned divc(unsigned x) { return x / 7 + x / 10 * 3 + x % 7 * 5; }

/* The same divisions as an optimizing back end emits them: a 32x32->64 multiply by a magic
   constant and shifts (Granlund and Montgomery; x / 7 needs the add-and-shift fix-up, since
   its magic number has 33 bits), and the remainder as x - 7 * (x / 7). */
static unsigned div7(unsigned x) {
    unsigned t = (unsigned)(((unsigned long long)x * 0x24924925u) >> 32);
    return (((x - t) >> 1) + t) >> 2;
}
static unsigned div10(unsigned x) { return (unsigned)(((unsigned long long)x * 0xCCCCCCCDu) >> 35); }
unsigned divc(unsigned x) { return div7(x) + div10(x) * 3 + (x - div7(x) * 7) * 5; }

 pair   opt   args   verdict   paths   queries 
 abs   O0      equivalent   2   3 
 abs   O2      equivalent   1   0 
 array_max   O0   --buffer-size 16   equivalent   8   15 
 array_max   O2   --buffer-size 16   equivalent   1   0 
 array_reverse   O0   --buffer-size 16   equivalent   4   11 
 array_reverse   O2   --buffer-size 16   equivalent   3   20 
 ceil_div   O0      diverged   4   5 
 ceil_div   O2      diverged   4   5 
 ceil_div   O0   --assume d != 0   equivalent   2   4 
 ceil_div   O2   --assume d != 0   equivalent   2   4 
 checked_add   O0      diverged   6   8 
 checked_add   O2      diverged   4   11 
 checksum_bound   O0   --buffer-size 8   diverged   10   20 
 checksum_bound   O2   --buffer-size 8   diverged   9   21 
 clamp   O0      diverged   3   5 
 clamp   O2      diverged   1   1 
 clamp   O0   --assume lo <= hi   equivalent   3   5 
 clamp   O2   --assume lo <= hi   equivalent   1   1 
 crc32_sliced   O0   --buffer-size 2 --globals initial   equivalent   1   3 
 crc32_sliced   O2   --buffer-size 2 --globals initial   equivalent   1   3 
 day_of_year   O0      diverged   28   62 
 day_of_year   O2      diverged   13   37 
 day_of_year   O0   --globals initial   equivalent   28   28 
 day_of_year   O2   --globals initial   equivalent   13   51 
 factorial   O0      equivalent   17   16 
 factorial   O2      equivalent   16   140 
 fp_bisect   O0      equivalent   64   63 
 fp_bisect   O2      equivalent   1   0 
 fp_bisect_le   O0      diverged   127   126 
 fp_bisect_le   O2      diverged   1   0 
 fp_fabs_branch   O0      diverged   2   2 
 fp_fabs_branch   O2      diverged   1   0 
 fp_fabs_copysign   O0      equivalent   1   0 
 fp_fabs_copysign   O2      equivalent   1   0 
 fp_fastmath_assoc   O0      diverged   1   0 
 fp_fastmath_assoc   O2      diverged   1   0 
 fp_fastmath_recip   O0      diverged   1   0 
 fp_fastmath_recip   O2      diverged   1   0 
 fp_float_madd   O0      diverged   1   0 
 fp_float_madd   O2      diverged   1   0 
 fp_float_mul   O0      equivalent   1   0 
 fp_float_mul   O2      equivalent   1   0 
 fp_floor_ceil   O0      equivalent   1   1 
 fp_floor_ceil   O2      equivalent   1   1 
 fp_fmin_branch   O0      diverged   2   2 
 fp_fmin_branch   O2      diverged   1   0 
 fp_horner   O0      diverged   1   0 
 fp_horner   O2      diverged   1   0 
 fp_horner   O0   --fp-tolerance rel:1e-12   diverged   1   0 
 fp_horner   O2   --fp-tolerance rel:1e-12   diverged   1   0 
 fp_hypot_swap   O0      diverged   1   0 
 fp_hypot_swap   O2      diverged   1   0 
 fp_hypot_swap   O0   --fp-equal ieee   equivalent   1   0 
 fp_hypot_swap   O2   --fp-equal ieee   equivalent   1   0 
 fp_int_floor   O0      diverged   1   0 
 fp_int_floor   O2      diverged   1   0 
 fp_int_sum   O0      equivalent   1   0 
 fp_int_sum   O2      equivalent   1   0 
 fp_is_integer   O0      diverged   1   0 
 fp_is_integer   O2      diverged   1   0 
 fp_kahan   O0      diverged   1   0 
 fp_kahan   O2      diverged   1   0 
 fp_nan_min   O0      diverged   5   8 
 fp_nan_min   O2      diverged   3   4 
 fp_nan_min   O0   --fp-equal ieee   equivalent   5   9 
 fp_nan_min   O2   --fp-equal ieee   equivalent   3   5 
 fp_neg_zero   O0      diverged   1   0 
 fp_neg_zero   O2      diverged   1   0 
 fp_neg_zero   O0   --fp-equal ieee   equivalent   1   1 
 fp_neg_zero   O2   --fp-equal ieee   equivalent   1   1 
 fp_series_const   O0      diverged   1   0 
 fp_series_const   O2      diverged   1   0 
 fp_series_same   O0      equivalent   1   0 
 fp_series_same   O2      equivalent   1   0 
 fp_sqrt_square   O0      diverged   1   0 
 fp_sqrt_square   O2      diverged   1   0 
 fp_trunc_int   O0      equivalent   1   0 
 fp_trunc_int   O2      equivalent   1   0 
 fp_twice   O0      equivalent   1   0 
 fp_twice   O2      equivalent   1   0 
 gcd   O0      equivalent   13   14 
 gcd   O2      equivalent   13   14 
 hash_sign_ext   O0   --buffer-size 8   diverged   9   16 
 hash_sign_ext   O2   --buffer-size 8   diverged   9   16 
 is_pow2   O0      equivalent   33   65 
 is_pow2   O2      equivalent   33   65 
 leap_year   O0      diverged   3   4 
 leap_year   O2      diverged   3   5 
 memchr   O0   --buffer-size 8   equivalent   9   34 
 memchr   O2   --buffer-size 8   equivalent   9   32 
 memcmp   O0   --buffer-size 8   equivalent   9   30 
 memcmp   O2   --buffer-size 8   equivalent   9   30 
 min   O0      equivalent   2   3 
 min   O2      equivalent   1   0 
 mod   O0      equivalent   1   1 
 mod   O2      equivalent   1   1 
 next_pow2   O0      equivalent   33   63 
 next_pow2   O2      equivalent   33   63 
 parse_decimal   O0   --buffer-size 8   diverged   81   80 
 parse_decimal   O2   --buffer-size 8   diverged   45   44 
 parse_perm   O0   --buffer-size 4   diverged   53   52 
 parse_perm   O2   --buffer-size 4   diverged   53   52 
 point_sort   O0      equivalent   2   3 
 point_sort   O2      equivalent   2   3 
 popcount   O0      equivalent   33   64 
 popcount   O2      equivalent   33   64 
 samples_sum   O0      equivalent   5   11 
 samples_sum   O2      equivalent   5   4 
 sign   O0      equivalent   3   4 
 sign   O2      equivalent   1   1 
 strlen   O0   --buffer-size 8   equivalent   9   30 
 strlen   O2   --buffer-size 8   equivalent   9   32 
 sum_to_n   O0      equivalent   18   17 
 sum_to_n   O2      equivalent   2   3 
 special   opt   args   verdict   paths   queries 
 popcount, if per bit vs SWAR   O0   --merge   equivalent   1   34 
 popcount, if per bit vs SWAR, no flag   O0      equivalent   1   34 
 concrete loop (interpreter speed)   O0      equivalent   1   0 
 concrete floating-point loop   O0      equivalent   1   0 
 harness   errors (expected)   paths   complete   wall ms   xcheck/KLEE 
 abs   0 (0)   2   yes   50   — 
 crc8   0 (0)   1   yes   80   — 
 is_pow2   1 (1)   1   yes   41   — 
 memcmp   3 (3)   5   yes   44   — 
 mod_nonzero   0 (0)   2   yes   39   0.10× 
 mod_pow2   0 (0)   1   yes   39   — 
 parse_decimal   0 (0)   9   yes   42   — 
 popcount   0 (0)   1   yes   46   0.06× 
 popcount_down   0 (0)   1   yes   48   — 
 sat_add   0 (0)   2   yes   49   — 
 strlen   0 (0)   8   yes   45   — 
 programs   opt   args   verdict   paths   queries 
 argparse   O1   --sym-args 0 2 2   diverged   59   76 
 cat_n   O1   --sym-stdin 3   diverged   8   38 
 echo   O1   --sym-args 0 2 2   diverged   123   556 
 echo   O1   --sym-arg 3   diverged   42   161 
 echo   O1   -e x --sym-arg 3   equivalent   46   158 
 echo_same   O1   --sym-args 0 2 2   equivalent   63   63 
 head_n   O1   -n --sym-arg 1 --sym-stdin 3   diverged   21   161 
 head_n   O1   -n 2 --sym-stdin 4   equivalent   11   80 
 oob_peek   O1   --sym-stdin 4   inconclusive   5   23 
 tr_upper   O1   --sym-stdin 4   equivalent   48   130 
 wc_l   O1   --sym-stdin 4   equivalent   16   15 
 wc_w   O1   --sym-stdin 3   diverged   15   249 
 wc_l, 4096 paths   O1   --sym-stdin 12   equivalent   4096   4095 

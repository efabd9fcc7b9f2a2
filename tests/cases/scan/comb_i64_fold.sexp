; dims: T=6 N=2
(program comb_i64_fold
  (input K (i64 T N))
  (input k0 (i64 N))
  (output (foldl (fn (acc k) (sub (mul acc 2) k)) k0 K)
          (scanr (fn (acc k) (sub (mul acc 2) k)) k0 K)))

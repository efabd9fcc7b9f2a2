; integer running sums stay i64; bools count as i64.
(program cumsum_int_bool
  (input K (i64 3 4))
  (input B (bool 3 4))
  (output (cumsum K 1) (cumprod K 0) (cumsum B) (cumsum B -1)))

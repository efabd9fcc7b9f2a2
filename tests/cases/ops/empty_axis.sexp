; T=0: reductions over the empty axis give the identity (mean: nan), running
; sums and slices of an empty array are empty.
; dims: T=0 N=3
(program empty_axis
  (input X (f64 T N))
  (output (sum X 0) (prod X 0) (mean X 0) (sum X) (sum X 1) (cumsum X) (slice X none none -1) (transpose X)))

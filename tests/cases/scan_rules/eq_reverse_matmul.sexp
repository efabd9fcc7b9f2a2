; x·W + b of a stack of inputs and of the same stack reversed along axis
; 0 (what a gradient's backward loop reads) is one batched product:
; matmul-reverse moves the reversal out of the product and
; add-bcast-reverse-2 out of the bias's sum, so the second product is the
; first one reversed. Exact (the same products and sums, permuted): the
; optimized outputs equal the original's at any magnitude (x scaled to
; 1e300: its products overflow in the same elements either way).
; dims: T=5 B=3 D=4 H=6
; scale: x=1e300
; scans_after: 0
; fires: matmul-reverse add-bcast-reverse-2
(program eq_reverse_matmul
  (input x (f64 T B D))
  (input w (f64 D H))
  (input b (f64 1 H))
  (let fwd (add b (matmul x w)))
  (let bwd (add b (matmul (slice x none none -1) w)))
  (output (sum (mul fwd fwd)) (sum (mul bwd (slice fwd none none -1)))))

; Matrix products against a loop's weights packed once per call
; (ops/prepacked.rs) on the step tape: x_t·Wx with k = 260, across
; matrixmultiply's blocks of 256 in k, and h·U with the state's 10 rows
; and 21 columns, neither a whole number of either kernel's tiles (rows
; of 6 and 8, columns of 8 and 4); both exceed the small kernel. The
; packed kernel must give matrixmultiply's bits: tests/plan.rs runs the
; loop with the tape on and off, bit for bit.
; dims: T=3 M=10 D=260 N=21
(program scan_tape_packed_weights
  (input X (f64 T M D))
  (input Wx (f64 D N))
  (input U (f64 N N))
  (input h0 (f64 M N))
  (let H (scan
    (sequences X)
    (outputs_info (sitsot h0))
    (non_sequences Wx U)
    (fn (x h wx u)
      (tanh (add (mul 0.05 (dot x wx)) (mul 0.3 (dot h u)))))))
  (output H))

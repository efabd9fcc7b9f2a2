; Reshapes of a step move out; a stack of a step with a loop-invariant
; value is not vectorized (the invariant would need broadcasting over the
; steps), so that output keeps a loop.
; dims: T=4
; scans_after: 1
; fires: scan-push-out-seq
(program eq_vec_stack_invariant_reshape
  (input X (f64 T 2 3))
  (input Y (f64 T 2 3))
  (input w (f64 2 3))
  (let (O0 O1 O2) (scan
    (sequences X Y)
    (outputs_info (nitsot) (nitsot) (nitsot))
    (non_sequences w)
    (fn (x y ww) (outputs
      (mul (stack x ww) 2.0)
      (mul (reshape x -1) 2.0)
      (mul (reshape y 3 2) 2.0)))))
  (output O0 O1 O2))

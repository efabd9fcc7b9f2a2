; The step tape computes once per call what reads only non-sequences and
; constants: the staged copy of a scalar, a matrix-vector product of two
; non-sequences, a bias broadcast to the batch; a small inner product of
; two non-sequences, whose running sums the tape updates in place, is
; computed on every step. tests/plan.rs runs it with the tape on and off,
; bit for bit, on two sets of inputs (the once-per-call values change
; with them).
; dims: T=6
(program scan_tape_invariants
  (input X (f64 T 3 16))
  (input h0 (f64 3 16))
  (input b (f64 16))
  (input W (f64 16 16))
  (input v (f64 16))
  (input c (f64))
  (let (H s) (scan
    (sequences X)
    (outputs_info (sitsot h0) (nitsot))
    (non_sequences b W v c)
    (fn (x_t h bb w vv cc)
      (let wv (dot w vv))
      (let bias (add (expand_dims bb 0) (zeros (f64 3 16))))
      (let h_new (tanh (add (add (mul h cc) x_t) (add bias wv))))
      (outputs h_new (add (sum h_new) (dot vv vv))))))
  (output H s))

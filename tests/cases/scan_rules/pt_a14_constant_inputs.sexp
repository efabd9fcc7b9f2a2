; Ports test_io's alloc_inputs3 (A14): the sequence zeros_like(W1) and the
; non-sequence zeros_like(W2) are constants and move into the body, which
; then reads only its state. PyTensor stops there (one loop); in the
; e-graph the body w1 * dot(h, w2) with w1 = 0 is the constant 0, so the
; loop is a constant too (push-out-nonseq on a constant body).
; scans_after: 0
; fires: scan-inline-constants
(program pt_a14_constant_inputs
  (input h0 (f64 3))
  (let Z1 (zeros (f64 3 3)))
  (let Z2 (zeros (f64 3 3)))
  (let H (scan
    (sequences Z1)
    (outputs_info (sitsot h0))
    (non_sequences Z2)
    (fn (w1 h w2) (mul w1 (dot h w2)))))
  (output H))

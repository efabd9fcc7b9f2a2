; Ports test_io's alloc_inputs1 (A13): h_t = dot(h_{t-1}, W1 * zeros_like(W2));
; no elementwise node stays inside. In eqscan the rule mul-zero (which,
; like PyTensor, assumes W1 finite) makes the product the constant zeros,
; kept inside the body; W1 is no longer read.
; scans_after: 1
; parts_after: sitsots=1 nonseqs=0
(program pt_a13_zero_alloc_nonseq
  (input W1 (f64 3 3))
  (input W2 (f64 3 3))
  (input h0 (f64 3))
  (let H (scan
    (outputs_info (sitsot h0))
    (non_sequences W1)
    (n_steps 5)
    (fn (h w1) (dot h (mul w1 (zeros (f64 3 3)))))))
  (output H))

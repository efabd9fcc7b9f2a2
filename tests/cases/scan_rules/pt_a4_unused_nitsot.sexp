; Ports test_io's remove_unused test for a nit-sot (A4): a_t = x + 1 and
; b_t = x*(x+1)*s_t*2, only a read. PyTensor keeps a loop with one nit-sot;
; eqscan drops b and, a being loop-invariant, replaces the loop by a
; broadcast of x + 1 (4 rows).
; scans_after: 0
; fires: scan-push-out-nonseq
(program pt_a4_unused_nitsot
  (input x (f64 5))
  (input s (f64 4))
  (let xp1 (add x 1.0))
  (let (A B) (scan
    (sequences s)
    (outputs_info (nitsot) (nitsot))
    (non_sequences x xp1)
    (fn (st xx xx1) (outputs (add xx 1.0) (mul (mul (mul xx xx1) st) 2.0)))))
  (output A))

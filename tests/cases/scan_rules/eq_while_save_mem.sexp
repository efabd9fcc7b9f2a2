; scan-save-mem on a while loop (research §5.2: trimming is allowed,
; keeping the last step that ran): Newton's square root, bounded by
; 10^9 steps and stopping after 19, read only at its last state and its
; last count: both states keep one step ((keep 1), a ring of one row),
; so the loop holds O(state) whatever its bound. Its step count and its
; condition are unchanged.
; dims: N=8
; scale: A=40.0
; fires: scan-save-mem
; scans_after: 1
(program eq_while_save_mem
  (input A (f64 N))
  (let a (exp A))
  (let (X K) (scan
    (outputs_info (sitsot a) (sitsot (zeros (f64))))
    (non_sequences a)
    (n_steps 1000000000)
    (fn (x k av)
      (let x1 (mul 0.5 (add x (div av x))))
      (outputs x1 (add k 1.0)
        (until (lt (max (div (abs (sub (mul x1 x1) av)) av)) 1e-12))))))
  (output (index X -1) (index K -1)))

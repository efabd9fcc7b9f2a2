; scan-save-mem must not trim a while loop's output that is read whole
; (the steps that ran, here 6 of at most 40: x_t = 1.5 x + 0.25 from
; x = 0.1 + c until x > 5) nor one read from its start (index 0): only
; the count read at its end keeps one step.
; dims: N=1
; not_fires: scan-push-out-output
; fires: scan-save-mem
; scans_after: 1
(program neg_while_save_mem_whole
  (input c (f64))
  (let (X K) (scan
    (outputs_info (sitsot (add 0.1 (mul c 0.01))) (sitsot (zeros (f64))))
    (n_steps 40)
    (fn (x k)
      (let x1 (add (mul x 1.5) 0.25))
      (outputs x1 (add k 1.0) (until (gt x1 5.0))))))
  (output X (index X 0) (index K -1)))

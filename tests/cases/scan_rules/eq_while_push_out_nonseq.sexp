; scan-push-out-nonseq on a while loop (research §5.2: hoisting
; loop-invariant work is allowed): Newton's square root of a = exp(A)
; written with exp inside the step and a tolerance scaled by sum(a)
; inside the condition; both are computed once before the loop and passed
; in as non-sequences. The loop keeps its step count (19 steps of at most
; 1000) and its condition, and no output becomes a repetition.
; dims: N=8
; scale: A=40.0
; fires: scan-push-out-nonseq
; scans_after: 1
(program eq_while_push_out_nonseq
  (input A (f64 N))
  (let (X K) (scan
    (outputs_info (sitsot (exp A)) (sitsot (zeros (f64))))
    (non_sequences A)
    (n_steps 1000)
    (fn (x k av)
      (let a (exp av))
      (let x1 (mul 0.5 (add x (div a x))))
      (outputs x1 (add k 1.0)
        (until (lt (max (abs (sub (mul x1 x1) a))) (mul 1e-12 (max a))))))))
  (output X K))

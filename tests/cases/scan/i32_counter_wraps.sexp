; An i32 sitsot counter that wraps past i32::MAX (the step tape holds
; f64 only, so the loop stays on the plan), and an i32 running sum of a
; sequence with its i64 total per step.
; dims: T=6
; scale: S=4e8
(program i32_counter_wraps
  (input S (i32 T))
  (input c0 (i32))
  (let (C A W) (scan (sequences S) (outputs_info (sitsot (add c0 2147483640)) (sitsot c0) (nitsot))
    (fn (s c a)
      (let c2 (add c 3))
      (outputs c2 (add a s) (add (cast i64 a) s)))))
  (output C A W (sum C) (index C -1)))

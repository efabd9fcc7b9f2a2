; Catalogue F11's "n = 0 raises": a while loop bounded by N = 0 steps runs
; none, so its output is empty and reading its last row fails at the
; index's FILE:LINE:COL. Optimized, scan-save-mem keeps only that row (a
; ring of one), and the run fails at the same place with the same
; sentence, not with a value the loop never computed.
; args: run --gen --dim N=0
(program p
  (input x0 (f64))
  (let Y (scan (outputs_info (sitsot x0)) (n_steps N)
    (fn (y) (let y1 (add y 1.0)) (outputs y1 (until (ge y 10.0))))))
  (output (index Y -1)))

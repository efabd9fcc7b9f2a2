; A fold over a symbolic length whose step no reduction replaces (a
; recurrence through tanh), run with the length bound to 0: the parser
; reads it as its last state or its init, fold-read-last as the last row
; of the init followed by the states, and scan-save-mem-after keeps only
; the last state ((keep 1): none when no step runs, so the init's row is
; read). Only the last state is stored; nothing fails at 0.
; dims: T=0 N=3
; cost_dims: T=1000
; scans_after: 1
; fires: fold-read-last scan-save-mem-after
(program eq_save_mem_fold_symbolic_T0
  (input X (f64 T N))
  (input W (f64 N N))
  (input h0 (f64 N))
  (output
    (foldl (fn (h x) (tanh (add x (dot W h)))) h0 X)))

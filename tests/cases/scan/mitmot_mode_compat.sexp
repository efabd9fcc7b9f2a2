; The hand-built MIT-MOT of research §2.3 (PyTensor's
; test_scan_mode_compatibility): a boolean sequence s = [1,1,0,1,0], two
; tapes of 6 slots of 2x2, each read at in taps 0 and 1 and written at
; out tap 1. The tape sums are 44 and 38.
(program mitmot_mode_compat
  (let s (tensor (bool 5) true true false true false))
  (let eye (tensor (f64 2 2) 1.0 0.0 0.0 1.0))
  (let A (mul (zeros (f64 6 1 1)) eye))
  (let B (mul (cast f64 (reshape (arange 6) 6 1 1)) eye))
  (let (TA TB) (scan
    (sequences s)
    (outputs_info
      (mitmot A (in_taps 0 1) (out_taps 1))
      (mitmot B (in_taps 0 1) (out_taps 1)))
    (fn (s_t a0 a1 b0 b1)
      (outputs (add (add s_t a0) a1) (add (mul s_t b0) b1)))))
  (output TA TB (sum TA) (sum TB)))

; Two states that the kept output reads but nothing reads after the loop
; (a Kalman filter's covariance; a second-order recurrence read at taps
; -2 -1): they keep only the steps their taps read back, (keep 1) and
; (keep 2), instead of all T. X is read whole and keeps every step.
; dims: T=7 N=2
; scans_after: 1
; fires: scan-save-mem-unread
(program eq_save_mem_unread_state
  (input Y (f64 T N))
  (input x0 (f64 N))
  (input p0 (f64 N))
  (input q0 (f64 2 N))
  (let (X P Q) (scan
    (sequences Y)
    (outputs_info (sitsot x0) (sitsot p0) (mitsot q0 (taps -2 -1)))
    (fn (y x p q2 q1)
      (outputs
        (add x (mul (div p (add p 1.0)) (sub y x)))
        (add (mul 0.5 p) (mul 0.1 q1))
        (sin (add q1 (mul 0.5 q2)))))))
  (output X))

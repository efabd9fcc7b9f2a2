; scan-fuse with inputs of every kind on both sides: the producer has a
; mit-sot and a non-sequence, the consumer another sequence before the
; producer's output, a sit-sot and a non-sequence; every parameter must
; land in the right place.
; dims: T=6 N=2
; scans_after: 1
; fires: scan-fuse
(program eq_fuse_mixed_inputs
  (input X (f64 T N))
  (input Y (f64 T N))
  (input I (f64 2 N))
  (input u (f64 N))
  (input v (f64 N))
  (input c0 (f64 N))
  (let P (scan (sequences X) (outputs_info (mitsot I (taps -2 -1))) (non_sequences u)
    (fn (x p2 p1 uu) (tanh (add (add (mul p1 uu) (mul 0.5 p2)) x)))))
  (let C (scan (sequences Y P) (outputs_info (sitsot c0)) (non_sequences v)
    (fn (y p c vv) (sin (add (mul c vv) (mul y p))))))
  (output C))

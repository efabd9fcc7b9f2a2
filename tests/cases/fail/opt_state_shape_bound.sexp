; issue 11: the state starts as (f64 1) but the body returns a step of X,
; of shape [D]; it runs optimized (scan-to-cumulative broadcasts a0) but
; not as written: both must fail at the scan.
; args: run --gen --dim T=4 --dim D=3
(program p
  (input X (f64 T D))
  (input a0 (f64 1))
  (let A (scan
    (sequences X)
    (outputs_info (sitsot a0))
    (fn (x a) (add a x))))
  (output A))

; scan-store-step-values must not fire: the backward loop's step
; recomputes the forward step with U2 where the forward loop reads U, so
; none of its values is one the forward loop computed, although they have
; the same form.
; dims: T=6 N=3
; scale: W=0.25 U=0.25 U2=0.25
; not_fires: scan-store-step-values
; scans_after: 2
(program neg_store_step_values_other_weight
  (input X (f64 T 4 N))
  (input W (f64 N N))
  (input U (f64 N N))
  (input U2 (f64 N N))
  (input h0 (f64 4 N))
  (let H (scan
    (sequences X)
    (outputs_info (sitsot h0))
    (non_sequences W U)
    (fn (x h w u)
      (let a (tanh (add (dot x w) (dot h u))))
      (mul a (sigmoid (dot h u))))))
  (let ALL (concat 0 (expand_dims h0 0) H))
  (let (G DU) (scan
    (sequences (slice X none none -1) (slice ALL -2 none -1))
    (outputs_info (sitsot (zeros (f64 4 N))) (sitsot (zeros (f64 N N))))
    (non_sequences W U2)
    (fn (x hp g du w u)
      (let p (dot hp u))
      (let a (tanh (add (dot x w) p)))
      (let s (sigmoid p))
      (let d (mul (add g 1.0) (add (mul (sub 1.0 (mul a a)) s) (mul a (mul s (sub 1.0 s))))))
      (outputs (dot d (transpose u 1 0)) (add du (dot (transpose hp 1 0) d))))))
  (output (sum H) (index G -1) (index DU -1)))

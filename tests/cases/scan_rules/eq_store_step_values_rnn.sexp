; scan-store-step-values: the backward loop of an RNN's gradient as
; PyTensor builds it goes forwards over the forward loop's inputs
; reversed (X as (slice X none none -1), h_{t-1} as the reversed shifted
; trace (slice (concat 0 (expand_dims h0 0) H) -2 none -1), the weights
; as they are) and recomputes the forward step's activation to
; differentiate it. The forward loop stores the activations as a new
; mapped output and the backward loop reads them reversed: the product
; h_{t-1}·U and the tanh are no longer done twice. Outputs as written.
; dims: T=6 N=3
; cost_dims: T=200 N=64
; scale: W=0.25 U=0.25
; fires: scan-store-step-values
; scans_after: 2
(program eq_store_step_values_rnn
  (input X (f64 T 4 N))
  (input W (f64 N N))
  (input U (f64 N N))
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
    (non_sequences W U)
    (fn (x hp g du w u)
      (let p (dot hp u))
      (let a (tanh (add (dot x w) p)))
      (let s (sigmoid p))
      (let d (mul (add g 1.0) (add (mul (sub 1.0 (mul a a)) s) (mul a (mul s (sub 1.0 s))))))
      (outputs (dot d (transpose u 1 0)) (add du (dot (transpose hp 1 0) d))))))
  (output (sum H) (index G -1) (index DU -1)))

; An embedding looked up by integer tokens and projected, with a bias (the
; Theano LSTM tutorial's `state_below = Wemb[x] W + b`): with more tokens
; than rows in the table, the table's rows are projected (and biased)
; once and the results gathered, instead of one product row per token.
; The loop over the projected rows keeps reading them as its sequence.
; dims: T=12 M=5 V=4 N=3 K=6
; scans_after: 1
; fires: matmul-take-rows add-take-rows
(program eq_embedding_projection
  (input tokens (i64 T M))
  (input Wemb (f64 V N))
  (input W (f64 N K))
  (input b (f64 K))
  (let x (mod tokens V))
  (let proj (add (matmul (take Wemb x) W) b))
  (let H (scan
    (sequences proj)
    (outputs_info (sitsot (zeros (f64 M K))))
    (fn (p h) (tanh (add p (mul 0.5 h))))))
  (output H (sum proj)))

; A bidirectional RNN: a forward and a go_backwards Elman RNN over the same
; X, the backward states re-reversed and joined to the forward ones, as a
; Bi-RNN layer's output is. One loop is left: the backward half reads X
; reversed, and its states come out in its own step order.
; dims: T=6 D=3
; cost_dims: T=500 D=64
; scans_after: 1
; fires: scan-merge
(program eq_merge_bidirectional_rnn
  (input X (f64 T D))
  (input Wf (f64 D D))
  (input Uf (f64 D D))
  (input Wb (f64 D D))
  (input Ub (f64 D D))
  (input h0 (f64 D))
  (let F (scan (sequences X) (outputs_info (sitsot h0)) (non_sequences Wf Uf)
    (fn (x h w u) (tanh (add (dot w h) (dot u x))))))
  (let B (scan (sequences X) (outputs_info (sitsot h0)) (non_sequences Wb Ub)
    (go_backwards)
    (fn (x h w u) (tanh (add (dot w h) (dot u x))))))
  (output (concat 1 F (slice B none none -1)) (index B -1)))

; A bidirectional RNN layer: a forward and a go_backwards RNN over X, the
; backward states re-reversed and joined to the forward ones. Optimized,
; scan-merge makes it one forward loop reading X and X reversed; the
; backward half's states stay in its own step order.
; dims: T=6 D=3
(program scan_merge_bidirectional
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

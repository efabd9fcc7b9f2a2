; Elman RNN over a ragged batch of sequences (issue 41's benchmark): a
; map over the list of sequences whose fn folds an Elman step over its
; sequence (hidden 128, input 64, W, U and b captured); the output is half
; the sum of squares of every sequence's final state, and its gradients
; with respect to the weights. `run` batches the map into one masked loop
; over the padded batch (docs/lists.md "Batching"); `--no-opt` runs it per
; sequence as written. Inputs: `--gen --lengths L=$(cat
; benches/lists/elman_ragged.lengths)` (64 lengths in 10..500 drawn
; with numpy.random.default_rng(41)), or benches/python/lists_peers.py's.
(program elman_ragged_fwd
  (input L (list (list (f64 64))))
  (input W (f64 128 128))
  (input U (f64 128 64))
  (input b (f64 128))
  (let hs (map (fn (s) (foldl (fn (h x) (tanh (add (add (dot W h) (dot U x)) b))) (zeros (f64 128)) s)) L))
  (let H (stack hs))
  (let cost (mul 0.5 (sum (mul H H))))
  (output cost H))

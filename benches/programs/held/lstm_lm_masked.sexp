; Held-out program (issue 40), not tuned for eqscan: an LSTM language model
; over a padded batch, with a mask (medium: T=100 M=64 N=64 V=128).
; Source: the Theano LSTM tutorial (deeplearning.net/tutorial/lstm.html,
; code/lstm.py of github.com/lisa-lab/DeepLearningTutorials): the
; embedding looked up by the integer tokens (`Wemb[x.flatten()]`), the input
; projection of every step computed before the loop (`state_below = x W + b`),
; the step `preact = h_ U + x_` with the four gates sliced out of one packed
; (M, 4N) row (`_slice`, order i, f, o, c), and the tutorial's mask that keeps
; a finished sequence's state:
;   c = f ⊙ c_ + i ⊙ g;   c = m c + (1 − m) c_
;   h = o ⊙ tanh(c);      h = m h + (1 − m) h_
; The tutorial then classifies the pooled states; a language model (Mikolov
; et al. 2010; Zaremba et al. 2014) instead predicts token t+1 from h_t:
; logits = h Wout + bout, softmax over the V-word vocabulary, and the
; tutorial's cost form −mean log p(target), here over the unmasked
; positions: loss = −Σ m_{t+1} log p(x_{t+1} | h_t) / Σ m_{t+1}.
; The embedding has the width of the state (dim_proj, as in the tutorial).
; W and U are the tutorial's (N, 4N) matrices, declared (N, 4, N) (a size
; is a number or a symbol) and reshaped to (N, 4N) outside the loop.
; Outputs: the loss and the hidden states (T−1, M, N).
; Not kept: `_slice(preact, k, N)` (columns k N to (k+1) N) is written as a
; reshape to (M, 4, N) and a take of gate k along axis 1 (eqscan's slice
; cuts axis 0 only); the target's log-probability is read through a one-hot
; of the targets (the tutorial's `pred[arange(n), y]` needs a 2-D index).
; The data rule's integers lie in [−5s, 5s]: `(mod tokens V)` puts them in
; the vocabulary. Tokens at scale 30, weights at scale 1 (pre-activations
; within ±1.3 at medium size); the mask a bool input (the tutorial's
; prepare_data mask), the data rule's value > 0. `; extreme:` scales the
; weights by 20 (saturated gates; the logits reach ±9.5 at the small sizes).
; dims: T=9 M=3 N=4 V=11
; scale: tokens=30.0
; extreme: tokens=30.0 Wemb=20.0 W=20.0 U=20.0 Wout=20.0
(program lstm_lm_masked
  (input tokens (i64 T M))
  (input mask (bool T M))
  (input Wemb (f64 V N))
  (input W (f64 N 4 N))
  (input U (f64 N 4 N))
  (input b (f64 4 N))
  (input Wout (f64 N V))
  (input bout (f64 V))
  (let x (mod tokens V))
  (let m (cast f64 mask))
  ; the inputs: every position but the last; the targets: every one but the first
  (let emb (take Wemb (slice x 0 -1)))                           ; (T-1, M, N)
  (let state_below (add (matmul emb (reshape W N -1)) (reshape b -1)))   ; (T-1, M, 4N)
  (let (H C) (scan
    (sequences state_below (slice m 0 -1))
    (outputs_info (sitsot (zeros (f64 M N))) (sitsot (zeros (f64 M N))))
    (non_sequences (reshape U N -1))
    (fn (x_ m_ h_ c_ u)
      (let preact (reshape (add (dot h_ u) x_) M 4 N))
      (let i (sigmoid (take preact 0 1)))
      (let f (sigmoid (take preact 1 1)))
      (let o (sigmoid (take preact 2 1)))
      (let g (tanh (take preact 3 1)))
      (let mm (expand_dims m_ 1))
      (let c1 (add (mul f c_) (mul i g)))
      (let c (add (mul mm c1) (mul (sub 1.0 mm) c_)))
      (let h1 (mul o (tanh c)))
      (let h (add (mul mm h1) (mul (sub 1.0 mm) h_)))
      (outputs h c))))
  (let logp (log_softmax (add (matmul H Wout) bout) 2))          ; (T-1, M, V)
  (let onehot (cast f64 (eq (expand_dims (slice x 1 none) 2) (arange V))))
  (let m_next (slice m 1 none))
  (let nll (neg (sum (mul onehot logp) 2)))
  (output (div (sum (mul m_next nll)) (sum m_next)) H))

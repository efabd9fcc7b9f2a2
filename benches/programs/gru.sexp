; A GRU layer (Cho et al. 2014, eqs. 5-8), written from the paper's
; equations (medium: T=50 M=80 N=128 D=128): a batch of M sequences of
; D-vectors, N hidden units, the weights as non-sequences, rows as examples
; (x_t is (M, D), h is (M, N)):
;   z   = sigmoid(x_t Wz + h_{t-1} Uz + bz)          update gate
;   r   = sigmoid(x_t Wr + h_{t-1} Ur + br)          reset gate
;   h~  = tanh(x_t Wh + (r ⊙ h_{t-1}) Uh + bh)       candidate
;   h_t = z ⊙ h_{t-1} + (1 − z) ⊙ h~
; Output: the hidden states (T, M, N).
; The data rule at scale 1 (its sines nearly cancel in the products:
; pre-activations within ±0.8 at medium size).
; dims: T=10 M=6 N=8 D=5
(program gru
  (input X (f64 T M D))
  (input h0 (f64 M N))
  (input Wz (f64 D N))
  (input Uz (f64 N N))
  (input bz (f64 N))
  (input Wr (f64 D N))
  (input Ur (f64 N N))
  (input br (f64 N))
  (input Wh (f64 D N))
  (input Uh (f64 N N))
  (input bh (f64 N))
  (let H (scan
    (sequences X)
    (outputs_info (sitsot h0))
    (non_sequences Wz Uz bz Wr Ur br Wh Uh bh)
    (fn (x_t h_prev wz uz bz_ wr ur br_ wh uh bh_)
      (let z (sigmoid (add (add (dot x_t wz) (dot h_prev uz)) bz_)))
      (let r (sigmoid (add (add (dot x_t wr) (dot h_prev ur)) br_)))
      (let cand (tanh (add (add (dot x_t wh) (dot (mul r h_prev) uh)) bh_)))
      (add (mul z h_prev) (mul (sub 1.0 z) cand)))))
  (output H))

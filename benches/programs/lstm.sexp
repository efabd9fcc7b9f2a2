; An LSTM layer with a padding mask (Hochreiter and Schmidhuber 1997, with
; the forget gate of Gers et al. 2000), written from the textbook equations
; (medium: T=100 M=64 N=64 D=64): a batch of M sequences of D-vectors, N
; hidden units, the four gates' weights stacked on a leading axis of 4
; (i, f, o, g) and applied by one batched matmul each:
;   [i f o g] = x_t W + h_{t-1} U + b               (4, M, N)
;   i, f, o   = sigmoid(...),  g = tanh(...)
;   c~ = f ⊙ c_{t-1} + i ⊙ g,  h~ = o ⊙ tanh(c~)
; and a per-step mask m_t (M,) that keeps the previous state of the
; sequences that have ended (m = 0):
;   c_t = m c~ + (1 − m) c_{t-1},  h_t = m h~ + (1 − m) h_{t-1}
; Output: the hidden states (T, M, N).
; The data rule at scale 1 (pre-activations within ±0.9 at medium size);
; the mask is a bool input (the data rule's value > 0: half the entries).
; dims: T=12 M=5 N=6 D=4
(program lstm
  (input X (f64 T M D))
  (input mask (bool T M))
  (input h0 (f64 M N))
  (input c0 (f64 M N))
  (input W (f64 4 D N))
  (input U (f64 4 N N))
  (input b (f64 4 N))
  (let (H C) (scan
    (sequences X mask)
    (outputs_info (sitsot h0) (sitsot c0))
    (non_sequences W U b)
    (fn (x_t m_t h_prev c_prev w u bias)
      (let pre (add (add (matmul x_t w) (matmul h_prev u)) (expand_dims bias 1)))
      (let i (sigmoid (index pre 0)))
      (let f (sigmoid (index pre 1)))
      (let o (sigmoid (index pre 2)))
      (let g (tanh (index pre 3)))
      (let c_new (add (mul f c_prev) (mul i g)))
      (let h_new (mul o (tanh c_new)))
      (let m (expand_dims (cast f64 m_t) 1))
      (outputs
        (add (mul m h_new) (mul (sub 1.0 m) h_prev))
        (add (mul m c_new) (mul (sub 1.0 m) c_prev))))))
  (output H))

; Held-out program (issue 40), not tuned for eqscan: the GRU of the issue
; (medium: T=50 M=80 N=128 D=128) as PyTorch's `torch.nn.GRU` documents it
; (https://pytorch.org/docs/stable/generated/torch.nn.GRU.html): a batch of
; M sequences of D-vectors, N hidden units, an input and a hidden bias for
; each gate, and the reset gate applied to the hidden product (after the
; matmul, as PyTorch and cuDNN do; Cho et al. apply it before):
;   r   = sigmoid(x_t W_ir + b_ir + h_{t-1} W_hr + b_hr)
;   z   = sigmoid(x_t W_iz + b_iz + h_{t-1} W_hz + b_hz)
;   n   = tanh(x_t W_in + b_in + r ⊙ (h_{t-1} W_hn + b_hn))
;   h_t = (1 − z) ⊙ n + z ⊙ h_{t-1}
; Kept: the per-gate weights of the equations, rows as examples (x_t is
; (M, D)); the weights are stored transposed from PyTorch's (out, in)
; layout so that each product reads x W. Output: the hidden states (T, M, N).
; The data rule at scale 1; `; extreme:` scales X and the hidden weights by
; 30 (saturated gates).
; dims: T=7 M=3 N=5 D=4
; extreme: X=30.0 W_hr=30.0 W_hz=30.0 W_hn=30.0
(program gru_b80
  (input X (f64 T M D))
  (input h0 (f64 M N))
  (input W_ir (f64 D N))
  (input W_iz (f64 D N))
  (input W_in (f64 D N))
  (input W_hr (f64 N N))
  (input W_hz (f64 N N))
  (input W_hn (f64 N N))
  (input b_ir (f64 N))
  (input b_iz (f64 N))
  (input b_in (f64 N))
  (input b_hr (f64 N))
  (input b_hz (f64 N))
  (input b_hn (f64 N))
  (let H (scan
    (sequences X)
    (outputs_info (sitsot h0))
    (fn (x h)
      (let r (sigmoid (add (add (dot x W_ir) b_ir) (add (dot h W_hr) b_hr))))
      (let z (sigmoid (add (add (dot x W_iz) b_iz) (add (dot h W_hz) b_hz))))
      (let n (tanh (add (add (dot x W_in) b_in) (mul r (add (dot h W_hn) b_hn)))))
      (add (mul (sub 1.0 z) n) (mul z h)))))
  (output H))

; Adapts test_push_out's GRU test (D2) to its forward loop (no gradients):
; r = sigmoid(x_t Wr + h U), z = sigmoid(x_t Wz + h V),
; h~ = tanh(x_t Wx + (r*h) W), h_t = z h~ + (1-z) h; the input products
; x_t Wr, x_t Wz, x_t Wx move out as whole-sequence products, one loop stays.
; dims: T=6 B=4 D=5
; scans_after: 1
; fires: scan-push-out-seq
(program pt_d2_gru_forward
  (input X (f64 T B D))
  (input Wr (f64 D D))
  (input Wz (f64 D D))
  (input Wx (f64 D D))
  (input U (f64 D D))
  (input V (f64 D D))
  (input W (f64 D D))
  (let H (scan
    (sequences X)
    (outputs_info (sitsot (zeros (f64 B D))))
    (non_sequences Wr Wz Wx U V W)
    (fn (x h wr wz wx u v w)
      (let r (sigmoid (add (dot x wr) (dot h u))))
      (let z (sigmoid (add (dot x wz) (dot h v))))
      (let hh (tanh (add (dot x wx) (dot (mul r h) w))))
      (add (mul z hh) (mul (sub 1.0 z) h)))))
  (output (index H -1)))

; The step tape computes small values one element at a time, each product
; and reduction in its kernel's order: a matrix-vector product with 9
; columns (eight running sums and a tail), x·B (B read by columns), an inner
; product, 2×3·3×2 and 1×1 products, sums of 9 and 5 elements, means,
; max/min/prod over a leading axis, a column broadcast and a repeating row.
; tests/plan.rs runs it with the tape on and off, bit for bit.
; dims: T=5
(program scan_tape_small_kernels
  (input X (f64 T 9))
  (input h0 (f64 9))
  (input W (f64 3 9))
  (input B (f64 9 3))
  (input P (f64 2 3))
  (input Q (f64 3 2))
  (input c (f64 2))
  (let (H y z s m g r) (scan
    (sequences X)
    (outputs_info (sitsot h0) (nitsot) (nitsot) (nitsot) (nitsot) (nitsot) (nitsot))
    (non_sequences W B P Q c)
    (fn (x_t h w b p q cc)
      (let h_new (tanh (add (mul 0.5 h) x_t)))
      (let y_t (add (dot w h_new) (dot h_new b)))
      (let z_t (add (dot p q) (mul (expand_dims cc 1) (dot (reshape (slice h_new 0 6 1) 2 3) (fill (f64 3 2) 0.25)))))
      (let s_t (add (add (dot h_new h_new) (sum h_new)) (add (mean h_new) (sum (slice h_new 0 5 1)))))
      (let hm (reshape (slice h_new 0 8 1) 4 2))
      (let m_t (add (max hm 0) (add (mean (min hm 1) 0) (prod (slice hm 0 2 1) 0))))
      (let g_t (add (expand_dims cc 1) (reshape (slice h_new 0 6 1) 2 3)))
      (let r_t (sub (reshape (slice h_new 0 6 1) 2 3) (slice h_new 6 9 1)))
      (outputs h_new y_t z_t s_t (add m_t (dot (reshape (index h_new 0) 1 1) (reshape (index h_new 1) 1 1))) g_t r_t))))
  (output H y z s m g r))

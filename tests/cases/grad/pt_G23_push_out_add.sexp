; Port of the push_out_add tests (G23): S_t = S_{t-1} + outer(a_t, b_t)
; from a non-zero S0, read as its last value (A^T B + S0); a weighted cost
; of it and its gradients with respect to A, B and S0, optimized and as
; written (the rewrite turns the loop into one product).
; wrt: A B S0
(program pt_G23_push_out_add
  (input A (f64 6 3))
  (input B (f64 6 2))
  (input S0 (f64 3 2))
  (input F (f64 3 2))
  (let Ss (scan (sequences A B) (outputs_info (sitsot S0))
    (fn (a b s) (add s (mul (expand_dims a 1) (expand_dims b 0))))))
  (let L (sum (mul F (tanh (index Ss -1)))))
  (let (gA gB gS) (grad L A B S0))
  (output L gA gB gS))

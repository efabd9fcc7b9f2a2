; Second order through solve: N = sum(dL/dX * V + dL/dB * U), its
; gradient against finite differences of N (the VJP's solve and matmul
; differentiated in turn).
; wrt: X B
(program op_solve_second_order
  (input X (f64 3 3))
  (input B (f64 3 2))
  (input W (f64 3 2))
  (input V (f64 3 3))
  (input U (f64 3 2))
  (let A (add X (mul 3.0 (tensor (f64 3 3) 1.0 0.0 0.0 0.0 1.0 0.0 0.0 0.0 1.0))))
  (let L (sum (mul W (mul (solve A B) (solve A B)))))
  (let (gX gB) (grad L X B))
  (let N (add (sum (mul gX V)) (sum (mul gB U))))
  (let (nX nB) (grad N X B))
  (output N nX nB))

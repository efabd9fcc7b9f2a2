; A hand-written gradient of a matrix product: L = sum(tanh(A B)),
; dL/dA = G B^T and dL/dB = A^T G with G = 1 - tanh(A B)^2.
; wrt: A B
(program hand_matmul
  (input A (f64 3 4))
  (input B (f64 4 2))
  (let P (tanh (dot A B)))
  (let G (sub 1.0 (mul P P)))
  (output (sum P) (dot G (transpose B)) (dot (transpose A) G)))

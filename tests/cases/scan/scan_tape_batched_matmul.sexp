; The step tape's batched matrix product: the state (M,N) times a stack of
; weights (3,N,N) (one matrix for every batch), a stack read from the
; sequence (2,M,N) times one matrix (N,N), and two stacks of equal batch
; shape (2,M,N)·(2,N,M); each product exceeds the small kernel (5120 and
; 6400 multiplications). tests/plan.rs runs it
; with the tape on and off, bit for bit.
; dims: T=4 M=20 N=16
(program scan_tape_batched_matmul
  (input X (f64 T 2 M N))
  (input U (f64 3 N N))
  (input V (f64 N N))
  (input h0 (f64 M N))
  (let (H S) (scan
    (sequences X)
    (outputs_info (sitsot h0) (nitsot))
    (non_sequences U V)
    (fn (x h u v)
      (let a (matmul h u))
      (let b (matmul x v))
      (let c (matmul (slice a 0 2) (transpose b 0 2 1)))
      (outputs
        (tanh (add (mul 0.25 (sum a 0)) (mul 0.125 (sum b 0))))
        c))))
  (output H S))

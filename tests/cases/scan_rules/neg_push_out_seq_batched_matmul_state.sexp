; The batched product of the state with the stacked weights,
; h_{t-1} (M,N) @ U (4,N,N), reads the state: it stays in the loop (only
; x_t W, which reads a sequence, is computed before it), so U stays a
; non-sequence.
; dims: T=4 M=3 D=2 N=3
; scans_after: 1
; parts_after: nonseqs=1 seqs=1
; fires: scan-push-out-seq
(program neg_push_out_seq_batched_matmul_state
  (input X (f64 T M D))
  (input W (f64 4 D N))
  (input U (f64 4 N N))
  (input h0 (f64 M N))
  (let H (scan
    (sequences X)
    (outputs_info (sitsot h0))
    (non_sequences W U)
    (fn (x h w u)
      (tanh (sum (add (matmul x w) (matmul h u)) 0)))))
  (output H))

; Batched matrix products of a sequence step and a weight with a different
; number of batch axes (an LSTM's x_t W with the four gates stacked):
; x_t (M,D) @ W (4,D,N) is (4,M,N) per step, so over all steps the stack
; of x_t needs a length-1 axis after time, (T,1,M,D) @ (4,D,N); A (4,M,D)
; @ y_t (D,N) the same for y_t; z_t (2,M,D) @ V (D,N) needs none. T = 4
; equals the gate axis, so a product without the axis would line up time
; with the gates and still type-check at these sizes.
; dims: T=4 M=3 D=2 N=5
; scans_after: 1
; parts_after: nonseqs=0 seqs=1
; fires: scan-push-out-seq
(program eq_push_out_seq_batched_matmul
  (input X (f64 T M D))
  (input Y (f64 T D N))
  (input Z (f64 T 2 M D))
  (input W (f64 4 D N))
  (input A (f64 4 M D))
  (input V (f64 D N))
  (input h0 (f64 M N))
  (let (H O) (scan
    (sequences X Y Z)
    (outputs_info (sitsot h0) (nitsot))
    (non_sequences W A V)
    (fn (x y z h w a v)
      (outputs
        (tanh (add h (sum (add (matmul x w) (matmul a y)) 0)))
        (matmul z v)))))
  (output H O))

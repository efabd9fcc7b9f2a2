; scan-fuse through the producer's second output: the consumer reads B of
; a loop computing (A, B); the fused loop must wire B's step value.
; dims: T=5
; known_bug: scan-fuse fires but its loop is not extracted: the consumer alone prefers the smaller fused loop without A, and A its own loop; greedy DAG extraction never switches both to the loop computing A, B and C (half the cost)
; scans_after: 1
; fires: scan-fuse
(program eq_fuse_second_output
  (input x (f64 T))
  (let (A B) (scan (sequences x) (outputs_info (sitsot 0.0) (sitsot 1.0))
    (fn (s a b) (outputs (tanh (add a s)) (sin (mul b s))))))
  (let C (scan (sequences B) (outputs_info (sitsot 0.5))
    (fn (s c) (cos (add c s)))))
  (output A C))

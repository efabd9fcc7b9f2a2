; an integer state stays i64.
; dims: T=5 N=3
(program scan_i64_state
  (input K (i64 T N))
  (input k0 (i64 N))
  (let A (scan
    (sequences K)
    (outputs_info (sitsot k0))
    (fn (k a) (add a (mul k 2)))))
  (output A))

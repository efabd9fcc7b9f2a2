; no outputs_info and two body outputs: two nitsots.
; dims: T=5 N=3
(program scan_two_nitsots
  (input X (f64 T N))
  (let (S C) (scan
    (sequences X)
    (fn (x) (outputs (sin x) (cos x)))))
  (output S C))

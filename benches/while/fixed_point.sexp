; A fixed-point iteration with a vector state, stopped at a tolerance:
; x_{t+1} = tanh(W x_t + b) until max |x_{t+1} - x_t| < 1e-12, at most
; 100000 steps (W's entries are at most 2 / N in size with --scale
; W=4/N: 15 steps run at N = 256). Only the last state and the step
; count are read. The while-loop workload of issue 37
; (benches/python/while_peers.py times it against JAX's lax.while_loop).
; (medium: N=256)
; scale: W=0.015625
(program fixed_point
  (input W (f64 N N))
  (input b (f64 N))
  (input x0 (f64 N))
  (let (X K) (scan
    (outputs_info (sitsot x0) (sitsot (zeros (f64))))
    (non_sequences W b)
    (n_steps 100000)
    (fn (x k w c)
      (let x1 (tanh (add (dot w x) c)))
      (outputs x1 (add k 1.0)
        (until (lt (max (abs (sub x1 x))) 1e-12))))))
  (output (index X -1) (index K -1)))

; A while loop that runs 300 of at most 100000 steps: its outputs' buffers
; start at 16 rows and double (16, 32, ..., 512) as the steps run, on the
; step tape in stretches between growths; the outputs hold exactly the
; 300 steps. A vector sit-sot h_t = 0.5 h + x (x a non-sequence row) and
; a counter k_t = k + 1 that stops the loop at k_t >= 300, with a mapped
; output of both.
; dims: N=3
(program while_long_growth
  (input x (f64 N))
  (let (H K Y) (scan
    (outputs_info (sitsot (zeros (f64 N))) (sitsot (zeros (f64))) (nitsot))
    (non_sequences x)
    (n_steps 100000)
    (fn (h k xv)
      (let h1 (add (mul h 0.5) xv))
      (let k1 (add k 1.0))
      (outputs h1 k1 (mul h1 k1) (until (ge k1 300.0))))))
  (output H K Y))

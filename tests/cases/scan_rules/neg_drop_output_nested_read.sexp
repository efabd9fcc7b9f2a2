; scan-drop-output must see a state read inside a nested loop: o_t runs a
; loop over x_t that reads a_{t-1}, so a cannot be dropped though only o is
; an output of the program.
; dims: T=4 N=3
; scans_after: 2
; parts_after: sitsots=2 nitsots=1
(program neg_drop_output_nested_read
  (input X (f64 T N))
  (input a0 (f64))
  (let (A O) (scan (sequences X) (outputs_info (sitsot a0) (nitsot))
    (fn (x a)
      (let R (scan (sequences x) (outputs_info (sitsot 0.0)) (non_sequences a)
        (fn (e r k) (tanh (add (mul r k) e)))))
      (outputs (mul a 0.9) (index R -1)))))
  (output O))

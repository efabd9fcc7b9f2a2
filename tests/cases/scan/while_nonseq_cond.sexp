; The forward half of research §7.2 W12: x_t = a x_{t-1} until x_t > c,
; with a = 1.5 and c = 5 non-sequences, x0 = 1, n_steps 50. Four steps run:
; X = [1.5 2.25 3.375 5.0625] (3.375 does not pass c, 5.0625 does).
(program while_nonseq_cond
  (let a (tensor (f64) 1.5))
  (let c (tensor (f64) 5.0))
  (let X (scan
    (outputs_info (sitsot (tensor (f64) 1.0)))
    (non_sequences a c)
    (n_steps 50)
    (fn (x av cv)
      (let x1 (mul av x))
      (outputs x1 (until (gt x1 cv))))))
  (output X (index X -1)))

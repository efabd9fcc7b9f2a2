; research §7.2 W12: x_t = a x_{t-1} until x_t > c (sit-sot; non-sequences
; a and c), a = 1.5 + da, x0 = 1 + dx0, c = 5 + dc (da = 0, dx0 = 4.8e-4,
; dc = 2.6e-4 by the data rule, scale 0.001), n_steps 50. 4 steps run:
; x ~ [1.5 2.25 3.375 5.0625] (x_3 = 3.38 and x_4 = 5.06 are 1.6 and 0.06
; from c; a finite-difference step moves x_4 by at most 1e-4). At the
; exact values dL/da = 24.25 and dL/dx0 = 12.1875 (L = sum x); c reaches L
; only through the condition, so eqscan gives zeros for it (PyTensor raises
; DisconnectedInputError), and finite differences agree: the step count
; does not change within the step.
; wrt: da dx0 dc
; scale: da=0.001 dx0=0.001 dc=0.001
(program while_grad_cond_only
  (input da (f64))
  (input dx0 (f64))
  (input dc (f64))
  (let a (add 1.5 da))
  (let c (add 5.0 dc))
  (let X (scan
    (outputs_info (sitsot (add 1.0 dx0)))
    (non_sequences a c)
    (n_steps 50)
    (fn (x av cv)
      (let x1 (mul av x))
      (outputs x1 (until (gt x1 cv))))))
  (let L (sum X))
  (let (gda gdx0 gdc) (grad L da dx0 dc))
  (output L gda gdx0 gdc X))

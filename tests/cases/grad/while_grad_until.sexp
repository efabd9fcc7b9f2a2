; The gradient through a while loop over a sequence (research
; grad_and_while.md §7.2 W4, PyTensor's TestGradUntil::test_grad_until):
; r_t = x_t^2 until x_t > u over x = arange(15) + e (e within +-0.005 by
; the data rule, scale 0.01: the input the gradient is taken for). With
; u = 5.5 (upstream: 5 on exact integers; between integers here so that e
; and the finite-difference step cannot move a row across it: every x_t is
; at least 0.49 from u) 7 steps run (x_0 .. x_6), r = [0 1 4 ... 36] + O(e),
; and dL/de = 2 x_t on rows 0-6, 0 on rows 7-14 (L = sum r).
; wrt: e
; scale: e=0.01
(program while_grad_until
  (input e (f64 15))
  (let x (add (cast f64 (arange 15)) e))
  (let R (scan
    (sequences x)
    (fn (x_t) (outputs (mul x_t x_t) (until (gt x_t 5.5))))))
  (let L (sum R))
  (let ge (grad L e))
  (output L ge R))

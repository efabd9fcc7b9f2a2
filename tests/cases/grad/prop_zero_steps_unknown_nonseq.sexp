; Found by tests/proptest_grad.rs (reduced, then a loop with steps added
; beside it): S7's length is min(T - 1, 2), known only at run time, and
; the loops capture it (a non-sequence of type (?)). A backward loop
; without steps could not make the empty per-step contributions of that
; shape ("output 1 has no steps and its step shape (?,) is not known
; statically"); such a non-sequence's gradient is now summed by an
; accumulator from zeros, which a loop without steps returns as is.
; wrt: Z W b g0
; dims: T=5
(program prop_zero_steps_unknown_nonseq
  (input Z (f64 T))
  (input W (f64))
  (input b (f64))
  (input g0 (f64 2))
  (let S7 (scan
    (sequences (Z (taps -1)) (g0 (taps 0)))
    (fn (x1 x3) (mul b (add x1 x3)))))
  (let (S16 S18) (scan
    (outputs_info (sitsot g0) (nitsot))
    (n_steps 0)
    (fn (s9) (outputs (mul s9 (index S7 -1)) W))))
  (let (S26 S28) (scan
    (outputs_info (sitsot g0) (nitsot))
    (n_steps 3)
    (fn (s9) (outputs (mul s9 (tanh (index S7 -1))) (mul W (sum (mul s9 S7)))))))
  (let L (add (sum (tanh S18)) (add (sum (tanh S26)) (sum (tanh S28)))))
  (let (gZ gW gb gg0) (grad L Z W b g0))
  (output L gZ gW gb gg0))

; Found by tests/proptest_grad.rs (seed 13) while scan-push-out-nonseq learnt
; to repeat invariant outputs of symbolic shape: a constant body class
; (zeros of a backward loop's step) was broadcast by a form that carried
; its parameter-reading nodes out of the loop, and the extracted program
; read (arg 4) at the top level. Constants are now repeated only when
; their whole type can be written.
; wrt: Z W V J3
; dims: T=4
(program loop_invariant_constant_scope
  (input Z (f64 T))
  (input W (f64 3))
  (input V (f64 3 3))
  (input J3 (f64 2))
  (let S4 (scan
    (sequences (Z (taps -1)))
    (fn (x1) J3)))
  (let S32 (scan
    (outputs_info (sitsot (tanh 0)))
    (n_steps T)
    (fn (s9) (let S28 (scan (outputs_info (mitsot J3 (taps -2 -1))) (n_steps T) (fn (f10 f11) (let v27 S4) f11))) (dot W (index V 0)))))
    (let gcost_o0 S32)
  (let gcost_L (sum (tanh gcost_o0)))
  (let (gcost_g0 gcost_g1 gcost_g2 gcost_g3) (grad gcost_L Z W V J3))
  (output gcost_L gcost_g0 gcost_g1 gcost_g2 gcost_g3))

; The step tape writes a body result straight into its row of the loop's
; buffer when the result's last instruction computes it and no later
; instruction reads it, and computes a sum or product whose only reader is
; another sum or product inside that reader (tests/plan.rs runs it with
; the tape on and off, bit for bit): a chain over a mitsot with taps -2
; and -1 kept in a ring of 3 rows (the row written is never one the step
; reads: written straight), a state another result reads on the same step
; (kept in the arena), a value returned twice (kept), a result computed
; from parameters alone (written straight), and a state in a ring of 1 row
; (its step reads the row it writes: the tape keeps it in its arena on
; every step and copies it).
; dims: T=7
(program scan_tape_direct_rows
  (input X (f64 T 12))
  (input a0 (f64 2 12))
  (input h0 (f64 12))
  (input g0 (f64 12))
  (let (A H y z w G) (scan
    (sequences X)
    (outputs_info (mitsot a0 (taps -2 -1) (keep 3)) (sitsot h0 (keep 1)) (nitsot) (nitsot) (nitsot) (sitsot g0 (keep 1)))
    (fn (x_t a2 a1 h g)
      (let a_new (add (add (mul 0.5 a1) (mul 0.3 a2)) (mul x_t 0.1)))
      (let h_new (sub (mul h 0.9) (mul a1 x_t)))
      (let y_t (mul h_new 2.0))
      (outputs a_new h_new y_t y_t (sub (mul 3.0 x_t) (add a1 0.5)) (add (mul g 0.5) x_t)))))
  (output A H y z w G))

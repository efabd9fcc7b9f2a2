; A loop body of every operation the step tape compiles to machine code,
; at magnitudes that overflow, underflow and make NaN, -0 and infinities:
; scalar states (staged copies, add, sub, mul, div, neg, abs, and log, pow,
; maximum and minimum through the plan's own element functions) and a row state
; of odd width (two elements at a time, then one) whose elementwise
; chain is one fused loop with a result written straight into its row.
; The plan test runs it with machine code forced on, bit for bit against
; the plan without the step tape.
; dims: T=7 N=5
(program native_extremes
  (input X (f64 T N))
  (input s0 (f64))
  (input v0 (f64 N))
  (let (S V Z W) (scan
    (sequences X)
    (outputs_info (sitsot s0) (sitsot v0) (nitsot) (nitsot))
    (fn (x s v)
      (let x0 (index x 0))
      (let s1 (add (mul s 1e306) (mul x0 1e308)))
      (let z (div (sub s1 s1) (neg (abs s))))
      (let s2 (mul (minimum (maximum (log (abs s1)) (pow (abs s) 0.5)) 800.0) (index x 1)))
      (let v1 (sub (mul v 1e308) (mul x 1e308)))
      (let v2 (div v1 (abs x)))
      (let v3 (neg (add v2 (mul v 0.5))))
      (outputs s2 (mul v3 1e-300) z (add (mul v2 1e-300) (neg x))))))
  (output S V Z W))

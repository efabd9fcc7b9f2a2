; A Newton iteration stopping at a tolerance (issue 37): Kepler's equation
; E - e sin E = M for 6 mean anomalies M (0 to 1.99 by the data rule,
; scale 4), e = 0.5, from E = M: d = (E - e sin E - M) / (1 - e cos E),
; E_t = E - d, until max |d| < 1e-10, n_steps 50. The condition reads d,
; computed in the step but not an output. With this data max |d| runs
; 0.548, 0.0645, 1.2e-3, 4.1e-7, 4.9e-14: 5 steps (the last miss is 4000
; times the tolerance, the hit 2000 times below it).
; dims: N=6
; scale: M=4.0
(program while_real_newton
  (input M (f64 N))
  (let E (scan
    (outputs_info (sitsot M))
    (non_sequences M)
    (n_steps 50)
    (fn (e_prev m)
      (let d (div (sub (sub e_prev (mul 0.5 (sin e_prev))) m)
                  (sub 1.0 (mul 0.5 (cos e_prev)))))
      (outputs (sub e_prev d) (until (lt (max (abs d)) 1e-10))))))
  (output E (index E -1)))

; A while loop nested in a map whose length changes between outer steps
; (research §7.2 W10, PyTensor's test_output_storage_reuse, widened so that
; the condition also fires): over n = [5 4 3 2 1], an inner loop
; z_t = z + 1 from s (0.0 by the data rule, as the upstream test's s_in)
; with n_steps n - 1 until z_t > 2, summed. Inner lengths 3 (stopped early,
; bound 4), 3 (fires on its last allowed step), 2, 1 and 0 (no step, the
; condition never runs): R = [6 6 3 1 0]. The inner value's length varies,
; so each outer step reduces it to a scalar.
(program while_in_map
  (input s (f64))
  (let ns (sub 5 (arange 5)))
  (let R (map
    (fn (n)
      (let Z (scan
        (outputs_info (sitsot s))
        (n_steps (sub n 1))
        (fn (z)
          (let z1 (add z 1.0))
          (outputs z1 (until (gt z1 2.0))))))
      (sum Z))
    ns))
  (output R))

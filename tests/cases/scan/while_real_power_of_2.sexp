; The "power of 2 until" example of PyTensor's scan documentation (issue 37):
; power_of_2 = previous_power * 2, until power_of_2 > max_value, from 1.0,
; max_value = 45 a non-sequence, n_steps 1024 only a bound. 6 steps run:
; P = [2 4 8 16 32 64].
(program while_real_power_of_2
  (let max_value (tensor (f64) 45.0))
  (let P (scan
    (outputs_info (sitsot (tensor (f64) 1.0)))
    (non_sequences max_value)
    (n_steps 1024)
    (fn (previous_power m)
      (let power_of_2 (mul previous_power 2.0))
      (outputs power_of_2 (until (gt power_of_2 m))))))
  (output P))

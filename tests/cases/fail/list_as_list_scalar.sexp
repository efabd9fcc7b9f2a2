; An output built as a list, (nitsot as_list), makes each step's result
; the list of its rows; a step that gives a scalar has none: a located
; type error at its outputs_info entry (line 9).
; args: fmt
(program p
  (input X (f64 4 3))
  (output (scan
    (sequences X)
    (outputs_info (nitsot as_list))
    (fn (x) (sum x)))))

; Port of TestExamples::test_grad_bug_disconnected_input (G16): W[i]
; mapped over the integer sequence v = [1, 2]; d(sum y)/dW has ones in rows
; 1 and 2 and zeros in row 0 (the index VJP adds into zeros).
; wrt: W
(program pt_G16_grad_bug_disconnected_input
  (input W (f64 3 3))
  (let v (tensor (i64 2) 1 2))
  (let y (scan (sequences v) (non_sequences W) (fn (i w) (index w i))))
  (let L (sum y))
  (output L (grad L W)))

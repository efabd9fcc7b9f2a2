; solve of an exactly singular matrix (NumPy raises LinAlgError): a
; located run-time error, in both modes.
; args: run --gen
(program p
  (input b (f64 2))
  (let A (tensor (f64 2 2) 1.0 2.0 2.0 4.0))
  (output (solve A b)))

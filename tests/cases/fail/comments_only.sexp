; args: fmt
; nothing but comments in this file.
; (program p (input X (f64 3)) (output X))

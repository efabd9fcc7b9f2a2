; Found by tests/fuzz.rs: a BEL character (U+0007) inside a name gave
; "unbound name '\aX'", the control character printed to the terminal
; inside the message; it must be a syntax error naming line 8, column 11.
; args: fmt
; (fixed in issue 11: control characters outside comments are refused)
(program p
  (input X (f64 3))
  (output X))

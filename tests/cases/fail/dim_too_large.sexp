; Issue 11, point 3: a size beyond what any machine holds. --gen
; computed the element count unchecked and panicked with "capacity
; overflow"; it must be exit 1 with one located sentence.
; args: run --gen --no-opt --dim T=9223372036854775807
; known_bug: issue 11 point 3, sizes in checked arithmetic (helper harden)
(program p
  (input X (f64 T 3))
  (output (sum X)))

; Issue 11, point 3: a size beyond what any machine holds. --gen
; computed the element count unchecked and panicked with "capacity
; overflow"; it must be exit 1 with one located sentence.
; args: run --gen --no-opt --dim T=9223372036854775807 --max-memory 1G
; (fixed in issue 11: sizes are computed in checked arithmetic)
(program p
  (input X (f64 T 3))
  (output (sum X)))

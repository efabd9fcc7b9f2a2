; args: fmt
; Found by tests/fuzz.rs: taps (4294967296 0) over a sequence of 2 rows
; span more rows than it has; the optimizer built a loop of -4294967294
; steps (an internal error over two lines). A sequence whose known length
; is shorter than its taps' span is refused when the program is checked.
(program p
  (input s0 (f64 3))
  (let S (scan
    (sequences ((fill (f64 2 3) 0.25) (taps 4294967296 0)))
    (outputs_info (sitsot s0))
    (fn (a b s) (tanh (add (minimum s a) b)))))
  (output S))

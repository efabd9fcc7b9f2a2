; A mitmot whose out tap is not an in tap: step i reads slot i and
; replaces slot i+2 (its old value is never read), and one whose taps are
; signed (in taps (-1 0), out taps (0 -1), as a second derivative has):
; step i reads slots i and i+1 and writes both, reads first.
; dims: T=4 N=3
(program mitmot_write_only_tap
  (input A (f64 6 N))
  (input B (f64 5 N))
  (let (RA RB) (scan
    (outputs_info
      (mitmot A (in_taps 0) (out_taps 2))
      (mitmot B (in_taps -1 0) (out_taps 0 -1)))
    (n_steps T)
    (fn (a0 bm1 b0)
      (outputs (add (mul 0.5 a0) 1.0) (mul bm1 b0) (sub b0 bm1)))))
  (output RA RB))

; A backward mitmot (in taps 0 1, out tap 1) with a true recurrence,
; whose whole tape is read after the loop: as a carry the tape is its row 0
; followed by the carry's steps. The loop stays (the recurrence), and
; the cost model keeps the tape (the carry form adds a concat); the
; outputs must equal the tape's.
; dims: T=6 N=3
; scans_after: 1
; fires: scan-mitmot-to-carry
(program eq_mitmot_carry_whole_tape
  (input A (f64 T N))
  (input G (f64 T N))
  (input g0 (f64 N))
  (let tape (concat 0 (expand_dims g0 0) G))
  (let Tp (scan
    (sequences A)
    (outputs_info (mitmot tape (in_taps 0 1) (out_taps 1)))
    (go_backwards)
    (fn (a c0 c1) (add c1 (tanh (mul a c0))))))
  (output Tp (sum Tp 0)))

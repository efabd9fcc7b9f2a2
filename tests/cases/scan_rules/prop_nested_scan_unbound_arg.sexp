; Found by tests/proptest_scan.rs (reduced, then by hand), also with the
; Scan rewrites alone. optimize fails: "internal error: the extracted
; program does not type-check (unbound name '_a3')". The outer scan has an
; unused non-sequence (0.5) and its body holds a scan over the closure h0;
; once the unused input is dropped, the inner scan's sequence still names
; the outer fn's old parameter position (_a3, one past the end). Without
; the unused 0.5 it is fine.
; dims: T=4
(program prop
  (input V (f64 2))
  (input h0 (f64 2))
  (let S (scan
    (sequences V)
    (outputs_info (sitsot (fill (f64 2) 0.25)))
    (non_sequences 0.5)
    (fn (x f w) (let I (scan (sequences h0) (outputs_info (sitsot x)) (fn (y s) s))) I)))
  (output S))

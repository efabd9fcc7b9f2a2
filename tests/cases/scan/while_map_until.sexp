; A nit-sot-only while loop (research §7.2 W13, F10 of scan_catalogue.md:
; a map until >= 10 gives 10 rows): y_t = s_t + 1 over s = arange(30) as
; f64, until y_t >= 10, n_steps 25 (fewer than the sequence's 30 rows).
; 10 steps run: Y = [1 ... 10].
(program while_map_until
  (let s (cast f64 (arange 30)))
  (let Y (scan
    (sequences s)
    (n_steps 25)
    (fn (x)
      (let y (add x 1.0))
      (outputs y (until (ge y 10.0))))))
  (output Y (index Y -1)))

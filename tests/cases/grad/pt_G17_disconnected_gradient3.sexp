; Port of TestExamples::test_disconnected_gradient3 (G17): a map with two
; outputs o1 = s + 1, o2 = o1 + 1; d(sum o2)/dv is ones (o1's own
; cotangent is disconnected, zero).
; wrt: v
(program pt_G17_disconnected_gradient3
  (input v (f64 5))
  (let (o1 o2) (scan (sequences v) (fn (s) (let a (add s 1.0)) (outputs a (add a 1.0)))))
  (let L (sum o2))
  (output L (grad L v)))

; An elementwise op of two arrays reversed along axis 0 is the op of the
; arrays, reversed (add-reverse, sub-reverse, mul-reverse, div-reverse):
; the same elements permuted, so the optimized outputs equal the
; original's bit for bit at any magnitude (b is scaled to 1e300: a * b
; overflows in the same elements either way). The form of a backward
; loop's stacked terms once they leave the loop.
; dims: T=7 D=3
; scale: b=1e300
; scans_after: 0
; fires: add-reverse sub-reverse mul-reverse div-reverse
(program eq_reverse_elementwise
  (input a (f64 T))
  (input b (f64 T))
  (input m (f64 T D))
  (input n (f64 T D))
  (let ra (slice a none none -1))
  (let rb (slice b none none -1))
  (output (mul ra rb) (add ra rb) (sub ra rb)
    (div (slice m none none -1) (slice n none none -1))))

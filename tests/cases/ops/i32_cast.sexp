; Casts to i32 as NumPy's astype on x86-64: floats truncate, NaN, +-inf
; and values outside i32 become i32::MIN; i64 keeps the low 32 bits; bool
; is 0 or 1. Casts from i32 to every dtype. J's elements reach +-5e10.
; scale: J=1e10
(program i32_cast
  (input K (i32 5))
  (input J (i64 5))
  (input B (bool 5))
  (let E (tensor (f64 10) nan inf -inf 3e9 -2.7 2.7 -2147483648.0 2147483647.5 2147483648.0 -2147483649.0))
  (output (cast i32 E) (cast i32 (cast f32 E)) (cast i32 J) (cast i32 B)
          (cast i64 K) (cast f64 K) (cast f32 K) (cast bool K) (cast i32 K)))

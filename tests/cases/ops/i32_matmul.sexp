; dot and matmul of i32 are i32 and wrap (NumPy's int32 loops); with an
; f64 operand they are f64. A's elements reach +-2e8, so products wrap.
; scale: A=4e7
(program i32_matmul
  (input A (i32 3 4))
  (input C (i32 4 2))
  (input v (i32 4))
  (input D (f64 4 2))
  (output (matmul A C) (dot A C) (dot A v) (dot v v) (matmul A D)
          (matmul (stack A A) C)))

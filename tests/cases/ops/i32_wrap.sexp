; i32 arithmetic wraps as NumPy's int32 does: i32::MAX + 1 is i32::MIN,
; i32::MIN * -1 and -i32::MIN are i32::MIN, |i32::MIN| is i32::MIN, and
; products and powers keep the low 32 bits. The fills are constants the
; optimizer folds: the folded constants must be the same wrapped bits.
; K's elements reach +-2e9.
; scale: K=4e8
(program i32_wrap
  (input K (i32 8))
  (let T (tensor (i32 4) 2147483647 -2147483648 5 -1))
  (let M (fill (i32) 2147483647))
  (let N (fill (i32) -2147483648))
  (output (add T 1) (mul T -1) (neg T) (abs T) (mul T T) (pow T 3) (sub T 2147483647)
          (add M 1) (mul N -1) (neg N) (abs N) (mul M M) (pow M 2) (sub N 1)
          (add K K) (mul K K) (mul K 3) (sub K 2147483647) (pow K 2)))

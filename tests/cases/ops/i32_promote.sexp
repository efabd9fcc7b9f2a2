; i32 under NumPy 2 promotion (NEP 50): with i32, bool and weak ints it
; stays i32; with i64 it is i64; with f32 or f64 (and a weak float) f64.
; Comparisons with a weak int outside i32 are exact (NumPy compares
; int32 with any Python int). Unary ops keep i32 (floor, round, abs,
; sign, neg); float functions give f64.
(program i32_promote
  (input K (i32 3 4))
  (input J (i64 3 4))
  (input F (f32 3 4))
  (input D (f64 3 4))
  (input B (bool 3 4))
  (output (add K K) (add K J) (add K F) (mul K D) (add K B) (sub K 1)
          (mul K 2.5) (maximum K F) (minimum K J) (where B K 7) (where B K J)
          (where B K 0.5) (clip K -2 3) (lt K 3000000000) (gt K -3000000000)
          (eq K F) (neg K) (abs K) (sign K) (floor K) (round K) (exp K)
          (sqrt (abs K)) (stack K K) (concat 0 K K)))

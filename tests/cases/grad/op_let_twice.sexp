; Two lets of the same expression are two values (SPEC §1): with z1 and z2
; both 2x, d sum(z1 z2) / d z1 = z2 and d/dz2 = z1, while d/dx = 8x.
; Values are PyTensor's.
(program op_let_twice
  (input x (f64 4))
  (let z1 (mul x 2.0))
  (let z2 (mul x 2.0))
  (let L (sum (mul z1 z2)))
  (let (g1 g2 gx) (grad L z1 z2 x))
  (output L g1 g2 gx))

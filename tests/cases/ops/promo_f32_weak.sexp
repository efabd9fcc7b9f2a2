; weak literals keep f32.
(program promo_f32_weak
  (input X (f32 3 4))
  (output (mul X 2.0) (add X 1) (div X 4.0) (sub 0.5 X)))

(program binary_pow
  (input A (f64 3 4))
  (input B (f64 3 4))
  (output (pow (abs A) B) (pow A 2.0) (pow 2.0 A)))

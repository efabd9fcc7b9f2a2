; args: fmt
(input X (f64 3))

; Issue 37's Newton iteration bounded by 10^9 steps: only the last value
; is read, 19 steps run, and the outputs hold those 19 (tests/alloc_while.rs
; checks that `run`'s peak_bytes stays under 1 MB). As
; while_last_value_newton_sqrt otherwise (n_steps 1000 there; PyTensor's while save-mem, Theano/Theano#3122): Newton's square
; root x_t = 0.5 (x + a / x) from x = a, for a = exp(A) (A from -20 to 20
; by the data rule, scale 40), until max |x_t^2 - a| / a < 1e-12 (max
; stands for `all`). A counter k_t = k + 1 beside it makes the step count
; visible in its last value: 19 steps (relative residual 6.8e-11 after
; step 18, 1.3e-16 after 19). Outputs: X[-1] (= sqrt(a) to rounding) and
; K[-1] = 19.
; dims: N=8
; scale: A=40.0
(program while_newton_1e9
  (input A (f64 N))
  (let a (exp A))
  (let (X K) (scan
    (outputs_info (sitsot a) (sitsot (zeros (f64))))
    (non_sequences a)
    (n_steps 1000000000)
    (fn (x k av)
      (let x1 (mul 0.5 (add x (div av x))))
      (outputs x1 (add k 1.0)
        (until (lt (max (div (abs (sub (mul x1 x1) av)) av)) 1e-12))))))
  (output (index X -1) (index K -1)))

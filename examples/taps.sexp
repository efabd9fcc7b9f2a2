; Sequence taps, a two-tap state, and a loop run backwards.
; Run it:  cargo run --release -- run examples/taps.sexp --gen --dim T=10
(program taps
  (input X (f64 T))
  (input x0 (f64 2))
  ; a centred difference: d_t = x_{t+1} - x_{t-1}   (T-2 steps)
  (let D (scan
    (sequences (X (taps -1 1)))
    (fn (prev next) (sub next prev))))
  ; a Fibonacci-like recurrence with taps -2 and -1, driven by the sequence
  (let F (scan
    (sequences X)
    (outputs_info (mitsot x0 (taps -2 -1)))
    (fn (x f2 f1) (add (add f1 f2) x))))
  ; the same sequence consumed from the end
  (let B (scan
    (sequences X)
    (outputs_info (sitsot 0.0))
    (go_backwards)
    (fn (x acc) (add (mul acc 0.5) x))))
  (output D F B))

; Keys are values: where picks between two key arrays, take, slice, flip,
; concat, reshape, transpose, expand_dims, squeeze and stop_gradient move
; them, a loop takes them as a sequence and gives them as outputs, and
; split takes a symbolic size; the draws from the moved keys are the
; draws of the keys they are (against tests/numpy_cases.py's Philox).
; dims: N=4
(program random_keys_moved
  (input c (bool N))
  (let ks (split (key 3) N))
  (let js (split (key 4) 4))
  (let w (where c ks js))
  (let r (reshape (concat 0 (slice ks 1 3) (flip js)) 2 3))
  (let t (transpose r))
  (let S (scan (sequences ks) (fn (k) (uniform k (f64 2)))))
  (let (F G) (scan (sequences ks) (fn (k) (outputs (fold_in k 5) (stop_gradient k)))))
  (let e (squeeze (expand_dims (index ks -1) 0) 0))
  (output w r t S F G e (uniform w (f32 3)) (normal t (f64 2))
          (take ks (tensor (i64 3) 3 0 -1))))

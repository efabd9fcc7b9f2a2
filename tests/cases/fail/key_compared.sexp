; args: run --no-opt
; keys are not compared (two keys are equal exactly when their draws are)
(program p
  (let k (key 1))
  (output (eq k (fold_in k 0))))

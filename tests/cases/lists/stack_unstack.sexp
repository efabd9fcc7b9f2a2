; A tensor's rows as a list, stacked back; len of the list and of the
; tensor (its leading length).
(program stack_unstack
  (input X (f64 5 2))
  (let xs (unstack X))
  (output xs (stack xs) (len xs) (len X)))

; Depth 2 with an empty inner list (lengths 2, 0, 3): flatten, an empty
; element (as a list and stacked), stack of an element, len of the empty
; one, the list passed through.
(program d2_flatten_index
  (input L (list (list (f64 2))))
  (let flat (flatten L))
  (output flat (index L 1) (stack (index L 2)) (len (index L 1)) (stack flat)
    (sum (stack (index L 0))) (stack (index L 1)) L))

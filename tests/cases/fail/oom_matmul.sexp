; args: run --no-opt --gen --dim N=100000 --dim K=1 --max-memory 1G
; A 100000 x 100000 product (80 GB): refused before the kernel allocates.
(program mm
  (input a (f64 N K))
  (input b (f64 K N))
  (output (sum (dot a b))))

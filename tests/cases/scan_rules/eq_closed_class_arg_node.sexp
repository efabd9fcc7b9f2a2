; A PyTensor Hessian (pytensor.gradient.hessian of sum(x**2) * x[0], as
; from_pytensor converts it): a body term (zeros_like (arg 1)) equals the
; closed (zeros_like x), so its class is closed and hoisted; the extractor
; chose the node reading (arg 1) for the hoisted use, leaving it outside
; any loop ("the extracted term is not a program"). A closed class's node
; that reads a parameter is now out of scope (extract/cost.rs, in_scope).
; dims: x_0=4
; scans_after: 1
(program eq_closed_class_arg_node
  (input x (f64 x_0))
  (let c (tensor (i32 1) 2))
  (let v (pow x c))
  (let v1 (sum v))
  (let v2 (index x 0))
  (let v3 (expand_dims v2 0))
  (let c4 (tensor (f64 1) 2.0))
  (let v5 (mul (mul c4 v3) x))
  (let v6 (inc_index v5 v1 0))
  (let v9 (arange x_0))
  (let (scan) (scan (sequences v9) (outputs_info (nitsot)) (non_sequences v6 x) (fn (x10 c11 c12) (let v13 (expand_dims 1 0)) (let v14 (expand_dims 2 0)) (let v15 (sub v14 v13)) (let v16 (pow c12 v15)) (let v17 (index c12 0)) (let v18 (pow c12 2)) (let v19 (sum v18)) (let v20 (mul v19 v17)) (let v21 (add 1.0 (cast f64 (zeros_like v20)))) (let v22 (index c11 x10)) (let v23 (add 1.0 (cast f64 (zeros_like v22)))) (let v25 (add 0.0 (cast f64 (zeros_like c11)))) (let v26 (inc_index v25 v23 x10)) (let v27 (index v26 0)) (let v28 (mul v27 v21)) (let v29 (expand_dims v28 0)) (let v30 (add v29 (cast f64 (zeros_like v18)))) (let v31 (mul v30 2)) (let v32 (mul v31 v16)) (let v34 (expand_dims 1 0)) (let v35 (sub v14 v34)) (let v36 (sub v35 1)) (let v37 (pow c12 v36)) (let v38 (mul v21 v17)) (let v39 (expand_dims v38 0)) (let v40 (add v39 (cast f64 (zeros_like v18)))) (let v41 (mul v40 2)) (let v42 (mul v26 v41)) (let v43 (mul v42 v35)) (let v44 (mul v43 v37)) (let v45 (pow c12 v35)) (let v46 (mul v26 v45)) (let v47 (mul v46 2)) (let v48 (sum v47)) (let v49 (expand_dims v48 0)) (let v50 (squeeze v49 0)) (let v51 (mul v50 v21)) (let v53 (add 0.0 (cast f64 (zeros_like c12)))) (let v54 (inc_index v53 v51 0)) (let v55 (add v54 v44)) (let v56 (add v55 v32)) (outputs v56))))
  (output scan))

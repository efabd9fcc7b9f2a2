//! Which kernel runs the `f64` matrix products that are large enough to
//! pack: eqscan's packed-`B` kernel ([`super::prepacked`], and the staged
//! products of a loop's step tape built on it) or matrixmultiply alone.
//!
//! Owns: the choice ([`ProductKernel`]), the environment variable that
//! forces it ([`KERNEL_VAR`]) and what the machine offers ([`machine`]).
//! Both kernels give the same bits for a result that holds no NaN (see
//! `prepacked`'s module docs), so the choice changes speed and the shape
//! of a loop's step tape, never a number; forcing it lets one machine run
//! the suite down both paths. Must not: run a product, or decide by the
//! size of one (that is `gemm`'s).
//!
//! Why AVX-512 machines take the packed kernel too: matrixmultiply builds
//! its AVX-512 kernel only under its `avx512` cargo feature, which nothing
//! in eqscan's dependency graph enables, so it runs its AVX2+FMA kernel on
//! them, whose order `prepacked` repeats. The unit tests of `prepacked`
//! and `gemm` compare the two bit for bit on whatever machine runs them,
//! so a dependency that turned the feature on would fail them on an
//! AVX-512 machine (the CI's).

use std::sync::OnceLock;

/// The environment variable that forces the kernel: `packed`, `portable`
/// or `auto` (the default: `packed` where the machine has it).
pub const KERNEL_VAR: &str = "EQSCAN_PRODUCT_KERNEL";

/// The kernel of the products large enough to pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProductKernel {
    /// eqscan's packed-`B` kernel (x86-64 with AVX2 and FMA): `B` packed
    /// once per loop call, `A` read in place, elementwise readers computed
    /// as each element is stored.
    Packed,
    /// matrixmultiply, which packs both operands at every product: every
    /// machine has it.
    Portable,
}

impl ProductKernel {
    /// The name [`KERNEL_VAR`] takes for this kernel.
    pub fn name(self) -> &'static str {
        match self {
            ProductKernel::Packed => "packed",
            ProductKernel::Portable => "portable",
        }
    }
}

/// [`KERNEL_VAR`] holds something this machine cannot honour: an unknown
/// name, or `packed` where the processor lacks AVX2 and FMA (the command
/// line refuses to start with it; the library then takes [`machine`]'s).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadKernelChoice {
    /// Not one of the names.
    #[error("{KERNEL_VAR} must be 'packed', 'portable' or 'auto', not '{0}'")]
    Unknown(String),
    /// `packed` on a processor without its instructions.
    #[error("{KERNEL_VAR}=packed needs an x86-64 processor with AVX2 and FMA; this one lacks them (use 'portable' or 'auto')")]
    Unavailable,
}

/// The best kernel this machine offers: [`ProductKernel::Packed`] on
/// x86-64 with AVX2 and FMA (with or without AVX-512), else
/// [`ProductKernel::Portable`].
pub fn machine() -> ProductKernel {
    static MACHINE: OnceLock<ProductKernel> = OnceLock::new();
    *MACHINE.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
                return ProductKernel::Packed;
            }
        }
        ProductKernel::Portable
    })
}

/// The kernel [`KERNEL_VAR`] asks for: `Ok(None)` when it is unset or
/// `auto`.
pub fn setting() -> Result<Option<ProductKernel>, BadKernelChoice> {
    let Some(v) = std::env::var_os(KERNEL_VAR) else {
        return Ok(None);
    };
    let text = v.to_string_lossy().into_owned();
    match text.trim() {
        "" | "auto" => Ok(None),
        "portable" => Ok(Some(ProductKernel::Portable)),
        "packed" if machine() == ProductKernel::Packed => Ok(Some(ProductKernel::Packed)),
        "packed" => Err(BadKernelChoice::Unavailable),
        _ => Err(BadKernelChoice::Unknown(text)),
    }
}

/// The kernel this process runs: [`setting`] when it holds, else
/// [`machine`]'s. Read once per process.
pub fn selected() -> ProductKernel {
    static SELECTED: OnceLock<ProductKernel> = OnceLock::new();
    *SELECTED.get_or_init(|| setting().ok().flatten().unwrap_or_else(machine))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_selection_is_the_setting_or_the_machines_best() {
        match setting() {
            Ok(Some(k)) => assert_eq!(selected(), k),
            _ => assert_eq!(selected(), machine()),
        }
        // The packed kernel is never selected where it cannot run.
        if machine() == ProductKernel::Portable {
            assert_eq!(selected(), ProductKernel::Portable);
        }
    }
}

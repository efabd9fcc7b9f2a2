//! Which kernel runs the `f64` matrix products that are large enough to
//! pack: eqscan's packed-`B` kernel ([`super::prepacked`], and the staged
//! products of a loop's step tape built on it) or matrixmultiply alone.
//!
//! Owns: the choice ([`ProductKernel`]), the environment variable that
//! forces it ([`KERNEL_VAR`]) and what the machine offers ([`machine`]);
//! and, for the packed kernel, the width of its registers ([`PackedWidth`]:
//! AVX2 or AVX-512, [`WIDTH_VAR`], [`machine_width`], [`width`]).
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
//!
//! The packed kernel's AVX-512 form ([`PackedWidth::Avx512`]) computes
//! more columns of `C` at once, never another sum: every element is the
//! same chain of fused multiply-adds in the same order as in the AVX2
//! form, so the width, like the kernel, changes speed and never a bit.

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
    /// [`WIDTH_VAR`] is not one of its names.
    #[error("{WIDTH_VAR} must be 'avx2', 'avx512' or 'auto', not '{0}'")]
    UnknownWidth(String),
    /// [`WIDTH_VAR`]`=avx512` on a processor without AVX-512F.
    #[error("{WIDTH_VAR}=avx512 needs an x86-64 processor with AVX-512F, AVX2 and FMA; this one lacks them (use 'avx2' or 'auto')")]
    WidthUnavailable,
}

/// The environment variable that forces the packed kernel's width:
/// `avx2`, `avx512` or `auto` (the default: the widest the machine has).
pub const WIDTH_VAR: &str = "EQSCAN_PACKED_WIDTH";

/// The registers the packed kernel computes with. Both give the same
/// bits (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackedWidth {
    /// 256-bit registers (AVX2 and FMA): tiles of 6 rows by 8 columns.
    Avx2,
    /// 512-bit registers (AVX-512F): tiles of 6 rows by up to 32 columns.
    Avx512,
}

impl PackedWidth {
    /// The name [`WIDTH_VAR`] takes for this width.
    pub fn name(self) -> &'static str {
        match self {
            PackedWidth::Avx2 => "avx2",
            PackedWidth::Avx512 => "avx512",
        }
    }
}

/// The widest registers the packed kernel can use here:
/// [`PackedWidth::Avx512`] where the processor has AVX-512F (besides
/// AVX2 and FMA), else [`PackedWidth::Avx2`] (also where the packed
/// kernel does not run at all: it is never asked then).
pub fn machine_width() -> PackedWidth {
    static WIDTH: OnceLock<PackedWidth> = OnceLock::new();
    *WIDTH.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            if machine() == ProductKernel::Packed && std::is_x86_feature_detected!("avx512f") {
                return PackedWidth::Avx512;
            }
        }
        PackedWidth::Avx2
    })
}

/// The width [`WIDTH_VAR`] asks for: `Ok(None)` when it is unset or
/// `auto`.
pub fn width_setting() -> Result<Option<PackedWidth>, BadKernelChoice> {
    let Some(v) = std::env::var_os(WIDTH_VAR) else {
        return Ok(None);
    };
    let text = v.to_string_lossy().into_owned();
    match text.trim() {
        "" | "auto" => Ok(None),
        "avx2" => Ok(Some(PackedWidth::Avx2)),
        "avx512" if machine_width() == PackedWidth::Avx512 => Ok(Some(PackedWidth::Avx512)),
        "avx512" => Err(BadKernelChoice::WidthUnavailable),
        _ => Err(BadKernelChoice::UnknownWidth(text)),
    }
}

/// The width this process's packed kernel runs: [`width_setting`] when it
/// holds, else [`machine_width`]'s. Read once per process.
pub fn width() -> PackedWidth {
    static SELECTED: OnceLock<PackedWidth> = OnceLock::new();
    *SELECTED.get_or_init(|| width_setting().ok().flatten().unwrap_or_else(machine_width))
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
/// `auto`. A [`WIDTH_VAR`] this machine cannot honour is an error here
/// too ([`width_setting`]), so that the one check the command line makes
/// at start covers both variables.
pub fn setting() -> Result<Option<ProductKernel>, BadKernelChoice> {
    width_setting()?;
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

    #[test]
    fn the_width_is_the_setting_or_the_machines_widest() {
        match width_setting() {
            Ok(Some(w)) => assert_eq!(width(), w),
            _ => assert_eq!(width(), machine_width()),
        }
        // AVX-512 is never selected where it cannot run.
        if machine_width() == PackedWidth::Avx2 {
            assert_eq!(width(), PackedWidth::Avx2);
        }
        assert_eq!(PackedWidth::Avx512.name(), "avx512");
    }
}

//! Elementary functions computed from IEEE 754 basic operations only (`+ − × ÷`, `sqrt`),
//! so that every platform gives bit-identical results.
//!
//! Rust's `f64::exp`, `ln` and `cbrt` call the platform's libm, whose last-bit rounding differs
//! between C libraries. A simulation must be a pure function of scenario and seed everywhere
//! (see [`crate::rng`]), and the models that need these functions (CUBIC's cube root, RFC 9438;
//! lognormal service times of the storage target) would otherwise inherit that difference. The
//! results here agree with libm to about 1e-15 relative; they are not faster, only reproducible.

use std::f64::consts::LN_2;

/// e^x. Range reduction x = k·ln2 + r with |r| ≤ ln2/2 (ln 2 in two parts), then a degree-20 Taylor polynomial of
/// e^r (remainder below 2⁻⁵³ for |r| ≤ 0.35), scaled by 2^k. Saturates to 0 and +∞.
pub fn exp(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x > 709.7 {
        return f64::INFINITY;
    }
    if x < -745.0 {
        return 0.0;
    }
    let k = (x / LN_2 + if x >= 0.0 { 0.5 } else { -0.5 }) as i64;
    // Cody-Waite: ln 2 split so that k·LN2_HI is exact (fdlibm's constants).
    const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000);
    const LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76);
    let r = (x - k as f64 * LN2_HI) - k as f64 * LN2_LO;
    let mut term = 1.0;
    let mut sum = 1.0;
    for n in 1..=20 {
        term = term * r / n as f64;
        sum += term;
    }
    sum * pow2(k)
}

/// 2^k for any k that keeps the result representable (handles the subnormal range by halving).
fn pow2(k: i64) -> f64 {
    let mut v = 1.0;
    let mut k = k;
    let step = f64::from_bits(((1023 + 512) as u64) << 52); // 2^512
    let inv = f64::from_bits(((1023 - 512) as u64) << 52); // 2^-512
    while k > 512 {
        v *= step;
        k -= 512;
    }
    while k < -512 {
        v *= inv;
        k += 512;
    }
    v * f64::from_bits(((1023 + k) as u64) << 52)
}

/// Natural logarithm for x > 0 (NaN for x ≤ 0 or NaN). x = m·2^e with m in [√½, √2), then
/// ln m = 2·atanh(s), s = (m−1)/(m+1), |s| ≤ 0.172, summed to s³⁹ (remainder below 2⁻⁵³).
pub fn ln(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return f64::NAN;
    }
    if x.is_infinite() {
        return x;
    }
    let mut x = x;
    let mut e: i64 = 0;
    if x < f64::MIN_POSITIVE {
        x *= pow2(64);
        e -= 64;
    }
    let bits = x.to_bits();
    e += ((bits >> 52) & 0x7FF) as i64 - 1023;
    let mut m = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52));
    if m > std::f64::consts::SQRT_2 {
        m /= 2.0;
        e += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut term = s;
    let mut sum = 0.0;
    let mut n = 1.0;
    while n < 40.0 {
        sum += term / n;
        term *= s2;
        n += 2.0;
    }
    2.0 * sum + e as f64 * LN_2
}

/// Real cube root by Newton's method from a bit-level first guess (a few iterations reach full
/// precision).
pub fn cbrt(x: f64) -> f64 {
    if x == 0.0 || x.is_nan() || x.is_infinite() {
        return x;
    }
    let neg = x < 0.0;
    let a = x.abs();
    // Divide the exponent by three for the first guess.
    let mut y = f64::from_bits(a.to_bits() / 3 + 0x2A9F_7893_782D_A1CE);
    for _ in 0..6 {
        y -= (y - a / (y * y)) / 3.0;
    }
    if neg {
        -y
    } else {
        y
    }
}

/// Quantile function of the standard normal distribution (Acklam's rational approximation,
/// relative error below 1.2e-9 over (0, 1)), for drawing normal and lognormal variates by
/// inversion from one uniform number.
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] =
        [7.784_695_709_041_462e-3, 3.224_671_290_700_398e-1, 2.445_134_137_142_996, 3.754_408_661_907_416];
    let p = p.clamp(1e-300, 1.0 - 1e-16);
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * ln(p)).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * ln(1.0 - p)).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(1e-300)
    }

    #[test]
    fn exp_and_ln_agree_with_libm() {
        for &x in &[-700.0f64, -20.5, -1.0, -1e-9, 0.0, 1e-12, 0.3, 1.0, 2.5, 10.0, 88.7, 700.0] {
            assert!(close(exp(x), x.exp(), 4e-15), "exp({x}) = {} vs {}", exp(x), x.exp());
        }
        for &x in &[1e-310f64, 1e-300, 1e-9, 0.5, 0.999, 1.0, 1.5, 2.0, 10.0, 12345.678, 1e300] {
            let want = x.ln();
            assert!((ln(x) - want).abs() <= 4e-15 * want.abs().max(1.0), "ln({x}) = {} vs {want}", ln(x));
        }
        assert!(ln(0.0).is_nan() && ln(-1.0).is_nan());
        assert_eq!(exp(1000.0), f64::INFINITY);
        assert_eq!(exp(-1000.0), 0.0);
    }

    #[test]
    fn cbrt_agrees_with_libm() {
        for &x in &[-27.0f64, -1e-5, 1e-300, 0.001, 1.0, 2.0, 27.0, 1234.5, 8e15, 1e300] {
            assert!(close(cbrt(x), x.cbrt(), 1e-15), "cbrt({x}) = {} vs {}", cbrt(x), x.cbrt());
        }
        assert_eq!(cbrt(0.0), 0.0);
    }

    #[test]
    fn normal_quantile_known_points() {
        assert!(normal_quantile(0.5).abs() < 1e-12);
        // 97.5% and 99% points of the standard normal.
        assert!((normal_quantile(0.975) - 1.959_963_984_540_054).abs() < 1e-8);
        assert!((normal_quantile(0.99) - 2.326_347_874_040_841).abs() < 1e-8);
        assert!((normal_quantile(0.01) + 2.326_347_874_040_841).abs() < 1e-8);
        assert!((normal_quantile(1e-6) + 4.753_424_308_822_899).abs() < 1e-7);
    }
}

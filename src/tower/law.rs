//! Exact laws of a tower's ledges for cubes counted without colour, which
//! `tower fit` computes likelihoods with (`TowerModel::ledge_laws`).
//! Everything is a natural logarithm, so that a probability too small for
//! an `f64` is still told apart from an impossible event: `-inf` stands
//! for "never" and for nothing else.

/// ln n! for n = 0..=max.
pub(crate) fn ln_factorials(max: usize) -> Vec<f64> {
    let mut v = Vec::with_capacity(max + 1);
    let mut acc = 0.0;
    v.push(acc);
    for i in 1..=max {
        acc += (i as f64).ln();
        v.push(acc);
    }
    v
}

/// (ln q, ln(1 - q)) of a probability q; either is `-inf` when q is 0 or 1.
pub(crate) fn ln_chance(q: f64) -> (f64, f64) {
    (q.ln(), (-q).ln_1p())
}

/// ln P(k successes) of Binomial(n, q) for k = 0..=n, from ln q and
/// ln(1 - q) (`ln_factorials` reaching at least n). Exactly `-inf` where
/// the probability is 0 (q = 0 and k > 0, or q = 1 and k < n).
pub(crate) fn ln_binomial(n: usize, ln_q: f64, ln_not_q: f64, ln_fact: &[f64]) -> Vec<f64> {
    (0..=n)
        .map(|k| {
            // 0 × -inf is NaN: a factor raised to the power 0 is 1.
            let hits = if k == 0 { 0.0 } else { k as f64 * ln_q };
            let misses = if k == n { 0.0 } else { (n - k) as f64 * ln_not_q };
            ln_fact[n] - ln_fact[k] - ln_fact[n - k] + hits + misses
        })
        .collect()
}

/// ln(e^a + e^b), exact for `-inf` terms.
pub(crate) fn ln_add(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    if lo == f64::NEG_INFINITY {
        return hi;
    }
    hi + (lo - hi).exp().ln_1p()
}

/// ln Σ e^x over `xs` (`-inf` for none).
pub(crate) fn ln_sum(xs: impl IntoIterator<Item = f64>) -> f64 {
    xs.into_iter().fold(f64::NEG_INFINITY, ln_add)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomial_sums_to_one_and_marks_the_impossible() {
        let lf = ln_factorials(30);
        for q in [0.0, 0.3, 0.85, 1.0] {
            let (a, b) = ln_chance(q);
            let row = ln_binomial(30, a, b, &lf);
            assert!((ln_sum(row.iter().copied()).exp() - 1.0).abs() < 1e-12, "q {q}");
            let possible = row.iter().filter(|x| x.is_finite()).count();
            assert_eq!(possible, if q == 0.0 || q == 1.0 { 1 } else { 31 }, "q {q}");
        }
        // Far in the tail, still possible: below f64's range, not -inf.
        let lf = ln_factorials(1000);
        let (a, b) = ln_chance(0.85);
        let row = ln_binomial(1000, a, b, &lf);
        assert!(row[0].is_finite() && row[0].exp() == 0.0, "{}", row[0]);
    }
}

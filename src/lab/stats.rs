//! The lab's statistics: Wilson intervals for rates, t intervals for means
//! and paired differences, and the chi-square test of seat balance.
//! Everything is a pure function of sums, so results do not depend on how
//! games were split across threads or shards.

use serde::Serialize;

/// z for a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// A point estimate with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Interval {
    pub value: f64,
    pub lo: f64,
    pub hi: f64,
}

impl Interval {
    pub fn width(&self) -> f64 {
        self.hi - self.lo
    }
    /// Whether the interval lies wholly on one side of zero.
    pub fn excludes_zero(&self) -> bool {
        self.lo > 0.0 || self.hi < 0.0
    }
}

/// Wilson score interval for `successes` out of `n` (successes may be
/// fractional: a tie for first counts 1/k for each of k seats).
pub fn wilson(successes: f64, n: u64) -> Interval {
    if n == 0 {
        return Interval { value: 0.0, lo: 0.0, hi: 1.0 };
    }
    let n = n as f64;
    let p = successes / n;
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).max(0.0).sqrt() / denom;
    Interval { value: p, lo: (centre - half).max(0.0), hi: (centre + half).min(1.0) }
}

/// Two-sided 95% quantile of Student's t with `df` degrees of freedom.
pub fn t95(df: u64) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080,
        2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => TABLE[df as usize - 1],
        31..=60 => 2.042 - (df - 30) as f64 * (2.042 - 2.000) / 30.0,
        61..=120 => 2.000 - (df - 60) as f64 * (2.000 - 1.980) / 60.0,
        _ => Z95,
    }
}

/// Running sums of one quantity: enough for its mean and variance.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sums {
    pub sum: f64,
    pub sum_sq: f64,
}

impl Sums {
    pub fn add(&mut self, x: f64) {
        self.sum += x;
        self.sum_sq += x * x;
    }

    /// Mean over `n` observations (observations never added count as 0)
    /// with its 95% t interval.
    pub fn mean(&self, n: u64) -> Interval {
        if n == 0 {
            return Interval { value: 0.0, lo: 0.0, hi: 0.0 };
        }
        let nf = n as f64;
        let mean = self.sum / nf;
        if n == 1 {
            return Interval { value: mean, lo: f64::NEG_INFINITY, hi: f64::INFINITY };
        }
        let var = ((self.sum_sq - nf * mean * mean) / (nf - 1.0)).max(0.0);
        let half = t95(n - 1) * (var / nf).sqrt();
        Interval { value: mean, lo: mean - half, hi: mean + half }
    }
}

/// Chi-square test that first places are spread evenly over the seats:
/// the statistic and its p-value (df = seats - 1).
pub fn seat_balance(wins: &[f64]) -> (f64, f64) {
    let n: f64 = wins.iter().sum();
    let k = wins.len();
    if k < 2 || n <= 0.0 {
        return (0.0, 1.0);
    }
    let e = n / k as f64;
    let chi2: f64 = wins.iter().map(|&o| (o - e) * (o - e) / e).sum();
    (chi2, chi2_sf(chi2, (k - 1) as f64))
}

/// P(X > x) for X ~ chi-square with `df` degrees of freedom.
pub fn chi2_sf(x: f64, df: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    1.0 - reg_lower_gamma(df / 2.0, x / 2.0)
}

/// The regularised lower incomplete gamma function P(a, x): a power series
/// below a + 1, a continued fraction (modified Lentz) above.
fn reg_lower_gamma(a: f64, x: f64) -> f64 {
    let ln_front = a * x.ln() - x - ln_gamma(a);
    if x < a + 1.0 {
        let (mut term, mut sum, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..1000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-15 {
                break;
            }
        }
        (sum.ln() + ln_front).exp().clamp(0.0, 1.0)
    } else {
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..1000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < 1e-15 {
                break;
            }
        }
        (1.0 - (ln_front.exp() * h)).clamp(0.0, 1.0)
    }
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_known_values() {
        // 50 of 100: 0.4038..0.5962 (standard tables).
        let i = wilson(50.0, 100);
        assert!((i.lo - 0.4038).abs() < 1e-3 && (i.hi - 0.5962).abs() < 1e-3, "{i:?}");
        // 0 of 10: 0..0.2775.
        let i = wilson(0.0, 10);
        assert!(i.lo == 0.0 && (i.hi - 0.2775).abs() < 1e-3, "{i:?}");
    }

    #[test]
    fn chi2_tail_matches_tables() {
        // Critical values at p = 0.05: df 1 -> 3.841, df 3 -> 7.815, df 4 -> 9.488.
        for (x, df) in [(3.841, 1.0), (7.815, 3.0), (9.488, 4.0)] {
            let p = chi2_sf(x, df);
            assert!((p - 0.05).abs() < 1e-3, "df {df}: p {p}");
        }
        assert!((chi2_sf(0.0, 3.0) - 1.0).abs() < 1e-12);
        assert!(chi2_sf(100.0, 3.0) < 1e-10);
    }

    #[test]
    fn mean_interval_uses_t() {
        let mut s = Sums::default();
        for x in [1.0, 2.0, 3.0, 4.0, 5.0] {
            s.add(x);
        }
        let m = s.mean(5);
        // sd = 1.5811, se = 0.7071, t(4) = 2.776 -> half-width 1.963.
        assert!((m.value - 3.0).abs() < 1e-12 && (m.hi - m.value - 1.963).abs() < 1e-3, "{m:?}");
        // Unobserved values count as zeros.
        assert_eq!(s.mean(10).value, 1.5);
    }
}

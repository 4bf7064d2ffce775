//! The lab's statistics: Wilson intervals for rates, Tango's score interval
//! for paired differences of win shares, t intervals for means (the score
//! interval when few games have a nonzero value), Holm's and
//! Benjamini–Hochberg's adjustments, the chi-square test of seat balance.
//! Distributions come from statrs. Everything is a pure function of sums,
//! so results do not depend on how games were split across threads or
//! shards.

use serde::Serialize;
use statrs::distribution::{ChiSquared, ContinuousCDF, Normal, StudentsT};

/// The error rate every statement is held to: 5% (family-wise for the
/// verdict's headlines, per interval elsewhere).
pub const ALPHA: f64 = 0.05;

/// The power at which the smallest detectable change is stated.
pub const POWER: f64 = 0.80;

/// Below this many games with a nonzero value (a difference, for paired
/// metrics) a mean's interval is the score interval for
/// rare events (see `Sums::test`).
pub const RARE: u64 = 30;

/// A point estimate with its interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Interval {
    pub value: f64,
    pub lo: f64,
    pub hi: f64,
}

impl Interval {
    pub const ZERO: Interval = Interval { value: 0.0, lo: 0.0, hi: 0.0 };

    pub fn width(&self) -> f64 {
        self.hi - self.lo
    }

    /// Whether the interval lies wholly on one side of zero.
    pub fn excludes_zero(&self) -> bool {
        self.lo > 0.0 || self.hi < 0.0
    }

    /// The interval in other units (fractions to percentages: 100).
    pub fn scaled(self, k: f64) -> Interval {
        Interval { value: self.value * k, lo: self.lo * k, hi: self.hi * k }
    }

    /// The largest distance from zero the interval allows: the change the
    /// data rule out beyond (an equivalence bound).
    pub fn bound(&self) -> f64 {
        self.lo.abs().max(self.hi.abs())
    }
}

/// An interval and the two-sided p-value of "the true value is 0", from the
/// same statistic (the interval excludes 0 exactly when p < its alpha).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Test {
    pub interval: Interval,
    pub p: f64,
}

/// z with P(|Z| > z) = alpha for a standard normal Z.
pub fn z(alpha: f64) -> f64 {
    Normal::standard().inverse_cdf(1.0 - alpha / 2.0)
}

/// Two-sided p-value of a standard normal statistic.
fn normal_p(stat: f64) -> f64 {
    if stat.is_nan() { 1.0 } else { (2.0 * Normal::standard().sf(stat.abs())).min(1.0) }
}

/// Wilson score interval (95%) for `successes` out of `n` (successes may be
/// fractional: a tie for first counts 1/k for each of k seats).
pub fn wilson(successes: f64, n: u64) -> Interval {
    wilson_at(successes, n, ALPHA)
}

/// Wilson score interval at the two-sided level `1 - alpha`.
pub fn wilson_at(successes: f64, n: u64, alpha: f64) -> Interval {
    if n == 0 {
        return Interval { value: 0.0, lo: 0.0, hi: 1.0 };
    }
    let z = z(alpha);
    let n = n as f64;
    let p = successes / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).max(0.0).sqrt() / denom;
    let lo = if successes <= 0.0 { 0.0 } else { (centre - half).max(0.0) };
    let hi = if successes >= n { 1.0 } else { (centre + half).min(1.0) };
    Interval { value: p, lo, hi }
}

/// Running sums of one quantity (observations never added count as 0):
/// enough for its mean, its variance, and how often and how far it left 0.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sums {
    pub sum: f64,
    pub sum_sq: f64,
    /// Sum of |x|: with `sum`, the positive and negative parts.
    pub sum_abs: f64,
    /// Observations other than 0.
    pub nonzero: u64,
    /// The largest |x| seen.
    pub max_abs: f64,
}

impl Sums {
    pub fn add(&mut self, x: f64) {
        self.sum += x;
        self.sum_sq += x * x;
        self.sum_abs += x.abs();
        if x != 0.0 {
            self.nonzero += 1;
        }
        self.max_abs = self.max_abs.max(x.abs());
    }

    /// The sample variance over `n` observations (0 below two).
    pub fn variance(&self, n: u64) -> f64 {
        if n < 2 {
            return 0.0;
        }
        let nf = n as f64;
        let mean = self.sum / nf;
        ((self.sum_sq - nf * mean * mean) / (nf - 1.0)).max(0.0)
    }

    /// The mean over `n` observations with its 95% interval (`test`).
    pub fn mean(&self, n: u64) -> Interval {
        self.test(n, ALPHA).interval
    }

    /// The mean with its 1 - alpha interval and the p-value of "the mean
    /// is 0": Student's t; when fewer than `RARE` observations are nonzero,
    /// the score interval of the values in units of the largest |x| seen
    /// instead (a rare event's few values say little about their spread,
    /// the t interval of all-equal values has no width and that of a
    /// skewed count reaches below what it can be; the score interval's
    /// variance, |x| times the largest |x|, is never below x²).
    pub fn test(&self, n: u64, alpha: f64) -> Test {
        if n == 0 {
            return Test { interval: Interval::ZERO, p: 1.0 };
        }
        let t = t_test(n, self.sum, self.sum_sq, alpha);
        if self.nonzero >= RARE {
            return t;
        }
        let scale = if self.max_abs > 0.0 { self.max_abs } else { 1.0 };
        self.share_test(n, alpha, scale)
    }

    /// Tango's score interval and test for a paired difference of shares
    /// in [-scale, scale] per game: the positive and negative parts as the
    /// two kinds of discordant games (a half win counts as half a game, so
    /// ties for first keep the interval conservative).
    pub fn share_test(&self, n: u64, alpha: f64, scale: f64) -> Test {
        let b = (self.sum_abs + self.sum) / 2.0 / scale;
        let c = (self.sum_abs - self.sum) / 2.0 / scale;
        let s = score_test(n as f64, b.max(0.0), c.max(0.0), alpha);
        Test { interval: s.interval.scaled(scale), p: s.p }
    }
}

/// An arm's mean of a metric over `n` games with the 95% interval the
/// report shows: `Sums::mean`, but `small_count_mean` for a metric never
/// below 0 in a run of fewer than `RARE` games; a count never seen below 0
/// has a mean of at least 0.
pub fn arm_mean(s: &Sums, n: u64) -> Interval {
    let never_below_zero = s.sum_abs == s.sum;
    let mut i = if n < RARE && never_below_zero { small_count_mean(s, n) } else { s.mean(n) };
    if never_below_zero {
        i.lo = i.lo.max(0.0);
    }
    i
}

/// The 95% interval an arm's mean of a metric that is never below 0 (a
/// count, a 0/1 event, a share) gets in a run of fewer than `RARE` games:
/// the union of `Sums::test`'s interval, Student's t interval and the
/// Poisson interval of the sum (Garwood's, from chi-square quantiles), at
/// least 0. In so few games the rare-event interval alone covers a skewed
/// count's mean in only 80% of 5-game runs (its scale, the largest value
/// seen, is too small), the t interval alone is too narrow when few games
/// are nonzero, and the Poisson interval alone when the count is more
/// spread than a Poisson count (`small_runs_get_intervals_that_cover_the_truth`).
pub fn small_count_mean(s: &Sums, n: u64) -> Interval {
    if n == 0 {
        return Interval::ZERO;
    }
    let nf = n as f64;
    let t = t_test(n, s.sum, s.sum_sq, ALPHA).interval;
    let sum = s.sum.max(0.0);
    let score = s.test(n, ALPHA).interval;
    let (mut lo, mut hi) = (t.lo.min(score.lo), t.hi.max(score.hi));
    // The Poisson interval's chi-square quantiles are searched for, which
    // takes longer the larger the sum (a pack's 2^62 points a game ran for
    // minutes); past `POISSON_MAX` it is within a fraction of a percent of
    // the sum, narrower than the t interval of any spread, and left out.
    if sum <= POISSON_MAX {
        let p_lo = if sum > 0.0 { ChiSquared::new(2.0 * sum).map(|d| d.inverse_cdf(ALPHA / 2.0) / (2.0 * nf)).unwrap_or(0.0) } else { 0.0 };
        let p_hi = ChiSquared::new(2.0 * sum + 2.0).map(|d| d.inverse_cdf(1.0 - ALPHA / 2.0) / (2.0 * nf)).unwrap_or(f64::INFINITY);
        (lo, hi) = (lo.min(p_lo), hi.max(p_hi));
    }
    Interval { value: sum / nf, lo: lo.max(0.0), hi }
}

/// The largest sum `small_count_mean` gives a Poisson interval (its
/// relative half-width there is about 2 / sqrt(10^6) = 0.2%).
const POISSON_MAX: f64 = 1e6;

/// Student's t interval and test for a mean from its sums.
fn t_test(n: u64, sum: f64, sum_sq: f64, alpha: f64) -> Test {
    let nf = n as f64;
    let mean = sum / nf;
    if n == 1 {
        return Test { interval: Interval { value: mean, lo: f64::NEG_INFINITY, hi: f64::INFINITY }, p: 1.0 };
    }
    let var = ((sum_sq - nf * mean * mean) / (nf - 1.0)).max(0.0);
    let se = (var / nf).sqrt();
    let dist = StudentsT::new(0.0, 1.0, nf - 1.0).expect("n > 1 degrees of freedom");
    let half = dist.inverse_cdf(1.0 - alpha / 2.0) * se;
    let p = if se > 0.0 {
        (2.0 * dist.sf((mean / se).abs())).min(1.0)
    } else if mean == 0.0 {
        1.0
    } else {
        0.0
    };
    Test { interval: Interval { value: mean, lo: mean - half, hi: mean + half }, p }
}

/// Tango's score statistic for a paired difference of proportions: `n`
/// pairs, `b` discordant one way, `c` the other, at the difference `d`
/// (the restricted maximum-likelihood estimate of c's cell in closed form).
fn tango_stat(n: f64, b: f64, c: f64, d: f64) -> f64 {
    let qa = 2.0 * n;
    let qb = -b - c + (2.0 * n - b + c) * d;
    let qc = -c * d * (1.0 - d);
    let root = (qb * qb - 4.0 * qa * qc).max(0.0).sqrt();
    // The root without cancellation.
    let q = if qb > 0.0 { -2.0 * qc / (qb + root) } else { (root - qb) / (2.0 * qa) };
    let var = n * (2.0 * q + d - d * d);
    let num = b - c - n * d;
    if var > 0.0 {
        num / var.sqrt()
    } else if num == 0.0 {
        0.0
    } else {
        num.signum() * f64::INFINITY
    }
}

/// Tango's score interval (1 - alpha) for the difference b/n - c/n of
/// paired proportions, and the score test of 0 (McNemar's statistic).
pub fn score_test(n: f64, b: f64, c: f64, alpha: f64) -> Test {
    if n <= 0.0 {
        return Test { interval: Interval { value: 0.0, lo: -1.0, hi: 1.0 }, p: 1.0 };
    }
    let z = z(alpha);
    let est = (b - c) / n;
    // The statistic falls as d rises: the bounds are where it crosses ±z.
    let bisect = |mut inside: f64, mut outside: f64, crossed: &dyn Fn(f64) -> bool| {
        for _ in 0..80 {
            let mid = (inside + outside) / 2.0;
            if crossed(mid) {
                outside = mid;
            } else {
                inside = mid;
            }
        }
        inside
    };
    let hi = if est >= 1.0 { 1.0 } else { bisect(est, 1.0, &|d| tango_stat(n, b, c, d) < -z) };
    let lo = if est <= -1.0 { -1.0 } else { bisect(est, -1.0, &|d| tango_stat(n, b, c, d) > z) };
    let p = if b + c > 0.0 { normal_p((b - c) / (b + c).sqrt()) } else { 1.0 };
    Test { interval: Interval { value: est, lo, hi }, p }
}

/// Holm's step-down adjusted p-values: a hypothesis is rejected at
/// family-wise level alpha when its adjusted p-value is below alpha.
/// (Holm is the closed test built from Bonferroni tests: every group of
/// hypotheses, the whole seat vector among them, is rejected jointly
/// before any one of its members.)
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| p[i].total_cmp(&p[j]).then(i.cmp(&j)));
    let mut out = vec![1.0; m];
    let mut running: f64 = 0.0;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max(((m - rank) as f64 * p[i]).min(1.0));
        out[i] = running;
    }
    out
}

/// Benjamini–Hochberg q-values: the hypotheses with q below alpha keep the
/// expected share of false discoveries among them below alpha.
pub fn benjamini_hochberg(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| p[i].total_cmp(&p[j]).then(i.cmp(&j)));
    let mut out = vec![1.0; m];
    let mut running: f64 = 1.0;
    for (rank, &i) in order.iter().enumerate().rev() {
        running = running.min(p[i] * m as f64 / (rank + 1) as f64).min(1.0);
        out[i] = running;
    }
    out
}

/// The smallest true change a test at level `alpha` detects with `POWER`,
/// from its interval's half-width: half × (z_alpha/2 + z_power) / z_alpha/2.
pub fn detectable(interval: &Interval, alpha: f64) -> f64 {
    let za = z(alpha);
    let zb = Normal::standard().inverse_cdf(POWER);
    interval.width() / 2.0 * (za + zb) / za
}

/// What pairing achieved for one quantity: the correlation of the two
/// arms' values game by game, and the variance of the paired difference
/// against that of two independent samples (1 - var(a-b)/(var a + var b)).
/// `None` where a quantity never varied.
pub fn pairing(a: &Sums, b: &Sums, diff: &Sums, n: u64) -> (Option<f64>, Option<f64>) {
    let (va, vb, vd) = (a.variance(n), b.variance(n), diff.variance(n));
    let corr = (va > 0.0 && vb > 0.0).then(|| ((va + vb - vd) / (2.0 * (va * vb).sqrt())).clamp(-1.0, 1.0));
    let reduction = (va + vb > 0.0).then(|| 1.0 - vd / (va + vb));
    (corr, reduction)
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
    ChiSquared::new(df).map(|d| d.sf(x)).unwrap_or(1.0)
}

#[cfg(test)]
mod tests;

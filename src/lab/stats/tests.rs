//! The lab's methods checked on known values and by simulation: thousands
//! of synthetic paired runs from fixed seeds (deterministic, so no flakes;
//! the margins say how far a figure may drift if the simulation changes).

use super::*;

/// A small deterministic generator (splitmix64) for synthetic games.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// A count with mean about `mean` (a sum of coin flips).
    fn count(&mut self, mean: f64) -> f64 {
        (0..20).filter(|_| self.unit() < mean / 20.0).count() as f64
    }
}

/// Win shares of 4 seats in one game: one winner, or (1 game in 20) a
/// two-way tie for first split 1/2 each.
fn shares(g: &mut Gen) -> [f64; 4] {
    let mut s = [0.0; 4];
    let w = g.below(4) as usize;
    if g.unit() < 0.05 {
        let other = (w + 1 + g.below(3) as usize) % 4;
        s[w] = 0.5;
        s[other] = 0.5;
    } else {
        s[w] = 1.0;
    }
    s
}

/// One synthetic run of `n` paired games between two arms with no true
/// difference: the second arm replays the first's game with probability
/// `same` and otherwise plays an independent game from the same law (as a
/// variant that shifts the random numbers without changing any rule).
/// Returns the family's p-values: 4 seat win shares (Tango) and 7 flow
/// metrics (counts, 0/1 and rare events), and the old method's verdict
/// (any per-game t interval at 95% excluding 0).
fn null_run(g: &mut Gen, n: u64, same: f64) -> (Vec<f64>, bool) {
    let mut seats = [Sums::default(); 4];
    let mut flows = [Sums::default(); 7];
    for _ in 0..n {
        let base = shares(g);
        let flow_b = [g.count(5.0), g.count(12.0), (g.unit() < 0.06) as u8 as f64, g.count(0.4), g.count(3.0), (g.unit() < 0.01) as u8 as f64, g.count(8.0)];
        let (var, flow_a) = if g.unit() < same {
            // The same game but for a few flow counts that drift either way.
            let mut f = flow_b;
            f[1] += g.below(3) as f64 - 1.0;
            f[6] += g.below(3) as f64 - 1.0;
            (base, f)
        } else {
            (shares(g), [g.count(5.0), g.count(12.0), (g.unit() < 0.06) as u8 as f64, g.count(0.4), g.count(3.0), (g.unit() < 0.01) as u8 as f64, g.count(8.0)])
        };
        for s in 0..4 {
            seats[s].add(var[s] - base[s]);
        }
        for k in 0..7 {
            flows[k].add(flow_a[k] - flow_b[k]);
        }
    }
    let mut p: Vec<f64> = seats.iter().map(|s| s.share_test(n, ALPHA, 1.0).p).collect();
    p.extend(flows.iter().map(|f| f.test(n, ALPHA).p));
    let old = seats.iter().chain(&flows).any(|s| t_test(n, s.sum, s.sum_sq, ALPHA).interval.excludes_zero());
    (p, old)
}

#[test]
fn a_null_variant_states_a_change_in_at_most_five_percent_of_runs() {
    let mut g = Gen(21);
    for (n, runs) in [(100, 2000), (400, 1000), (1000, 500)] {
        let (mut new, mut old) = (0, 0);
        for _ in 0..runs {
            let (p, old_said) = null_run(&mut g, n, 0.6);
            if holm(&p).iter().any(|&q| q < ALPHA) {
                new += 1;
            }
            old += old_said as u32;
        }
        let (new, old) = (f64::from(new) / runs as f64, f64::from(old) / runs as f64);
        // Holm holds the family-wise rate at 5% at most; measured 2.3%,
        // 3.3%, 3.6%. The margin allows two standard errors of a 5% rate.
        let margin = 2.0 * (0.05 * 0.95 / runs as f64).sqrt();
        assert!(new <= ALPHA + margin, "{n} games: {new} of runs state a change");
        // Eleven tests at 95% each (the old verdict): measured 39%, 40%, 45%.
        assert!(old > 0.3, "{n} games: the old method stated a change in {old} of runs");
    }
}

/// A variant that changes seat A's result in `rate` of games (A wins a game
/// it lost) and, in `back` of games, the other way (A loses a game it won
/// or shared): the true difference, then one run's seat-A sums.
fn rare_run(g: &mut Gen, n: u64, rate: f64, back: f64) -> Sums {
    let mut a = Sums::default();
    for _ in 0..n {
        let base = shares(g);
        let u = g.unit();
        let var = if u < rate && base[0] < 1.0 {
            1.0
        } else if u >= rate && u < rate + back && base[0] > 0.0 {
            0.0
        } else {
            base[0]
        };
        a.add(var - base[0]);
    }
    a
}

/// The true seat-A difference of `rare_run`: E[1 - base] rate - E[base] back.
fn rare_truth(rate: f64, back: f64) -> f64 {
    // P(A wins) = 0.95/4 + 0.05 * 2/4 (a share of 1/2) = 0.2375 + 0.025.
    let (wins, shares_half) = (0.95 / 4.0, 0.05 * 2.0 / 4.0);
    let mean_share = wins + shares_half * 0.5;
    rate * (1.0 - mean_share) - back * mean_share
}

#[test]
fn rare_changes_get_intervals_that_cover_the_truth_and_never_zero_width() {
    for (rate, back, seed) in [(0.01, 0.0, 1), (0.01, 0.005, 2), (0.02, 0.0, 3), (0.004, 0.0, 4)] {
        let truth = rare_truth(rate, back);
        let mut g = Gen(seed);
        let runs = 4000;
        let (mut covered, mut old_covered) = (0u32, 0u32);
        for _ in 0..runs {
            let s = rare_run(&mut g, 200, rate, back);
            let i = s.share_test(200, ALPHA, 1.0).interval;
            assert!(i.width() > 0.0, "a zero-width interval: {s:?}");
            covered += (i.lo <= truth && truth <= i.hi) as u32;
            let t = t_test(200, s.sum, s.sum_sq, ALPHA).interval;
            old_covered += (t.lo <= truth && truth <= t.hi) as u32;
        }
        let (cov, old) = (f64::from(covered) / runs as f64, f64::from(old_covered) / runs as f64);
        // Measured 97.1% to 99.9%; the issue asks for 93% at least.
        assert!(cov >= 0.93, "rate {rate}, back {back}: coverage {cov}");
        // The old t interval covers far less when few games differ (46% to 81%).
        assert!(old < 0.9, "rate {rate}: the t interval covered {old}");
    }
}

#[test]
fn means_of_rare_and_skewed_metrics_cover_the_truth() {
    // (chance of an event, its size): rare jumps of 3, rare ones, a common count.
    for (p, size, seed) in [(0.005, 3.0, 5), (0.01, 1.0, 6), (0.02, 5.0, 7)] {
        let mut g = Gen(seed);
        let truth = p * size;
        let runs = 4000;
        let mut covered = 0u32;
        for _ in 0..runs {
            let mut s = Sums::default();
            for _ in 0..200 {
                s.add(if g.unit() < p { size } else { 0.0 });
            }
            let i = s.mean(200);
            assert!(i.width() > 0.0);
            covered += (i.lo <= truth && truth <= i.hi) as u32;
        }
        let cov = f64::from(covered) / runs as f64;
        // Measured 98.1% to 99.98%.
        assert!(cov >= 0.93, "p {p}, size {size}: coverage {cov}");
    }
    // A dense count keeps its t interval (about 95%).
    let mut g = Gen(8);
    let mut covered = 0u32;
    for _ in 0..2000 {
        let mut s = Sums::default();
        for _ in 0..200 {
            s.add(g.count(6.0) - g.count(6.0));
        }
        covered += s.mean(200).excludes_zero() as u32;
    }
    // Its false alarms stay near 5% (measured 6.0% of 2000, within noise).
    assert!(f64::from(covered) / 2000.0 < 0.07);
}

#[test]
fn tango_matches_known_values() {
    // No discordant game: the upper bound is z²/(n + z²), the lower its mirror.
    let z2 = z(ALPHA).powi(2);
    let t = score_test(200.0, 0.0, 0.0, ALPHA);
    assert!((t.interval.hi - z2 / (200.0 + z2)).abs() < 1e-9 && (t.interval.lo + t.interval.hi).abs() < 1e-9, "{t:?}");
    assert_eq!(t.p, 1.0);
    // McNemar's statistic at 0: b = 10, c = 2 gives z = 8/sqrt(12), p = 0.0209.
    let t = score_test(50.0, 10.0, 2.0, ALPHA);
    assert!((t.p - 0.0209).abs() < 5e-4, "{t:?}");
    assert!(t.interval.lo > 0.0 && t.interval.hi < 0.35, "{t:?}");
    // Swapping the sides mirrors the interval.
    let m = score_test(50.0, 2.0, 10.0, ALPHA);
    assert!((m.interval.lo + t.interval.hi).abs() < 1e-9 && (m.interval.hi + t.interval.lo).abs() < 1e-9);
    // Many games: close to the Wald interval of the differences.
    let t = score_test(10_000.0, 1200.0, 1000.0, ALPHA);
    let se = ((2200.0 / 10_000.0 - 0.02f64.powi(2)) / 10_000.0).sqrt();
    assert!((t.interval.hi - (0.02 + z(ALPHA) * se)).abs() < 2e-4, "{t:?}");
}

#[test]
fn holm_and_benjamini_hochberg_match_hand_computed_values() {
    let p = [0.01, 0.04, 0.03, 0.005];
    // Holm: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1, kept rising.
    let h = holm(&p);
    for (got, want) in h.iter().zip([0.03, 0.06, 0.06, 0.02]) {
        assert!((got - want).abs() < 1e-12, "{h:?}");
    }
    // BH: p * 4 / rank, kept falling from the top: 0.02, 0.04, 0.04, 0.02.
    let q = benjamini_hochberg(&p);
    for (got, want) in q.iter().zip([0.02, 0.04, 0.04, 0.02]) {
        assert!((got - want).abs() < 1e-12, "{q:?}");
    }
}

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
    for x in
        [1.0, 2.0, 3.0, 4.0, 5.0, 1.0, 2.0, 3.0, 4.0, 5.0, 1.0, 2.0, 3.0, 4.0, 5.0, 1.0, 2.0, 3.0, 4.0, 5.0, 1.0, 2.0, 3.0, 4.0, 5.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    {
        s.add(x);
    }
    let m = s.mean(30);
    // sd = 1.4384, se = 0.2626, t(29) = 2.0452 -> half-width 0.5371.
    assert!((m.value - 3.0).abs() < 1e-12 && (m.hi - m.value - 0.5371).abs() < 1e-3, "{m:?}");
    // Unobserved values count as zeros.
    assert_eq!(s.mean(60).value, 1.5);
}

#[test]
fn pairing_figures_follow_from_the_sums() {
    // b = a + small noise: strongly correlated, most variance removed.
    let mut g = Gen(9);
    let (mut a, mut b, mut d) = (Sums::default(), Sums::default(), Sums::default());
    for _ in 0..5000 {
        let x = g.count(10.0);
        let y = x + g.below(3) as f64 - 1.0;
        a.add(x);
        b.add(y);
        d.add(x - y);
    }
    let (r, red) = pairing(&a, &b, &d, 5000);
    // var(x) = 20 × 1/4 = 5, var(noise) = 2/3: r = 5/sqrt(5 × 5.67) = 0.939,
    // reduction 1 - (2/3)/(5 + 5.67) = 0.9375.
    assert!((r.unwrap() - 0.939).abs() < 0.01 && (red.unwrap() - 0.9375).abs() < 0.01, "{r:?} {red:?}");
    assert_eq!(pairing(&Sums::default(), &Sums::default(), &Sums::default(), 10), (None, None));
    // The detectable change at 80% power is 1.43 half-widths at 5%.
    let i = Interval { value: 0.0, lo: -1.0, hi: 1.0 };
    assert!((detectable(&i, ALPHA) - (1.959_964 + 0.841_621) / 1.959_964).abs() < 1e-5);
}

/// How often the 95% interval the lab reports covers the truth in small
/// runs (5 to 29 games), over synthetic runs from fixed seeds: an arm's
/// mean of a metric (a dense count, a skewed count, a common 0/1 event, a
/// rare one), a paired difference of a count (null and planted), a paired
/// difference of win shares (null and planted), an arm's win rate.
/// Returns (what, games, coverage) for every case.
fn small_run_coverage(runs: u32) -> Vec<(&'static str, u64, f64)> {
    // (what, one game's value, the truth)
    type Draw = fn(&mut Gen) -> f64;
    let cases: [(&str, Draw, f64); 9] = [
        ("dense count (mean 6)", |g| g.count(6.0), 6.0),
        ("spread count (mean 3, 0 in 60% of games)", |g| if g.unit() < 0.4 { g.count(7.5) } else { 0.0 }, 3.0),
        ("skewed count (mean 0.8)", |g| g.count(0.8), 0.8),
        ("0/1 event, 30%", |g| (g.unit() < 0.3) as u8 as f64, 0.3),
        ("0/1 event, 5%", |g| (g.unit() < 0.05) as u8 as f64, 0.05),
        ("paired count difference, null", |g| g.count(6.0) - g.count(6.0), 0.0),
        ("paired count difference, +1", |g| g.count(7.0) - g.count(6.0), 1.0),
        ("paired win share difference, null", |g| shares(g)[0] - shares(g)[0], 0.0),
        ("paired win share difference, +10 points", |g| if g.unit() < 0.1 { 1.0 - shares(g)[0] } else { 0.0 }, 0.1 * (1.0 - 0.2625)),
    ];
    let mut out = Vec::new();
    for (k, &(what, draw, truth)) in cases.iter().enumerate() {
        for n in [5u64, 10, 20, 29] {
            let mut g = Gen(1000 + 10 * k as u64 + n);
            let mut covered = 0u32;
            for _ in 0..runs {
                let mut s = Sums::default();
                for _ in 0..n {
                    s.add(draw(&mut g));
                }
                // As the report computes it (report.rs: `diff_test` for a
                // pair, `arm_report` for an arm).
                let i = if what.starts_with("paired win") {
                    s.share_test(n, ALPHA, 1.0).interval
                } else if what.starts_with("paired") {
                    s.mean(n)
                } else {
                    arm_mean(&s, n)
                };
                covered += (i.lo <= truth && truth <= i.hi) as u32;
            }
            out.push((what, n, f64::from(covered) / f64::from(runs)));
        }
    }
    // An arm's win rate (Wilson, a tie's half win counted as half).
    for n in [5u64, 10, 20, 29] {
        let mut g = Gen(2000 + n);
        let mut covered = 0u32;
        for _ in 0..runs {
            let wins: f64 = (0..n).map(|_| shares(&mut g)[0]).sum();
            let i = wilson(wins, n);
            covered += (i.lo <= 0.2625 && 0.2625 <= i.hi) as u32;
        }
        out.push(("win rate (Wilson)", n, f64::from(covered) / f64::from(runs)));
    }
    out
}

#[test]
fn small_runs_get_intervals_that_cover_the_truth() {
    let found = small_run_coverage(4000);
    for (what, n, cov) in &found {
        println!("{what:<45} n={n:<3} coverage {cov:.4}");
    }
    // Where 60% of games are 0, all 5 games of a run are 0 in 0.6^5 = 7.8%
    // of runs: no interval that those runs leave finite covers a mean of 3
    // there, so 5-game runs of it are held to 90% (measured 91.3%).
    let floor = |what: &str, n: u64| if what.starts_with("spread") && n == 5 { 0.90 } else { 0.93 };
    let poor: Vec<_> = found.iter().filter(|(what, n, c)| *c < floor(what, *n)).collect();
    assert!(poor.is_empty(), "coverage below 93%: {poor:?}");
}

/// A sum as large as a pack may make (four seats' `math.maxinteger`) gets
/// its small-run interval at once: the Poisson part's quantile search ran
/// for minutes there (`numbers_at_the_edge_of_the_api_neither_wrap_nor_size_an_allocation`).
#[test]
fn a_small_run_of_huge_counts_gets_an_interval_without_the_poisson_search() {
    for total in [1e6, 1e6 + 1.0, 1e12, 4.0 * i64::MAX as f64, f64::MAX] {
        let mut s = Sums::default();
        for _ in 0..6 {
            s.add(total / 6.0);
        }
        let i = small_count_mean(&s, 6);
        assert!(i.lo <= i.value && i.value <= i.hi && i.lo >= 0.0, "{total}: {i:?}");
    }
}

//! `tower fit`: the exact likelihood against the models' own throws,
//! "cannot explain" said only when proven, the particle filter's lost
//! track reported as such, and the verdict resting on reliable numbers.

use shogun_lab::core::*;
use shogun_lab::tower::{Cascade, Levels, Stateless, TowerModel};

fn one_colour(n: u16) -> Pile {
    let mut p = Pile::default();
    p.seats[0] = n;
    p
}

/// The ledge laws the exact likelihood rests on are the models' throws:
/// one ledge holding `s` cubes, `a` thrown, 60,000 throws; every share of
/// the cubes left stuck within 4.5 standard errors (+0.002) of the law,
/// and what the law calls impossible never seen.
#[test]
fn ledge_laws_match_the_throws() {
    let models: Vec<(&str, Box<dyn TowerModel>)> = vec![
        ("levels per throw", Box::new(Levels { levels: 1, pass: 2.0 / 3.0, loosen: 1.0 / 3.0, per_cube: false, setup_pass: None })),
        ("levels per cube", Box::new(Levels { levels: 1, pass: 0.6, loosen: 0.2, per_cube: true, setup_pass: None })),
        ("levels that never loosens", Box::new(Levels { levels: 1, pass: 0.7, loosen: 0.0, per_cube: true, setup_pass: None })),
        ("cascade", Box::new(Cascade { levels: 1, pass: 0.6, loosen: 0.15 })),
        ("cascade that never loosens", Box::new(Cascade { levels: 1, pass: 0.5, loosen: 0.0 })),
        ("stateless", Box::new(Stateless { p: 0.7 })),
    ];
    const N: u32 = 60_000;
    for (what, m) in &models {
        for (s, a) in [(0u16, 5u16), (4, 3), (6, 0), (5, 6)] {
            let law = &m.ledge_laws(s, a).unwrap()[usize::from(a)];
            assert_eq!(law.len(), usize::from(s + a) + 1, "{what} {s}+{a}");
            let total: f64 = law.iter().map(|x| x.exp()).sum();
            assert!((total - 1.0).abs() < 1e-12, "{what} {s}+{a}: the law sums to {total}");
            let mut rng = GameRng::seeded(u64::from(s) * 100 + u64::from(a));
            let mut seen = vec![0u32; law.len()];
            for _ in 0..N {
                let mut inside = vec![one_colour(s)];
                m.throw(&mut inside, one_colour(a), &mut rng).unwrap();
                seen[inside[0].total() as usize] += 1;
            }
            for (k, (&x, &c)) in law.iter().zip(&seen).enumerate() {
                let (p, f) = (x.exp(), f64::from(c) / f64::from(N));
                if x == f64::NEG_INFINITY {
                    assert_eq!(c, 0, "{what} {s}+{a}: {k} stuck is impossible by the law, seen {c} times");
                }
                let se = (p * (1.0 - p) / f64::from(N)).sqrt();
                assert!((f - p).abs() <= 4.5 * se + 0.002, "{what} {s}+{a}: {k} stuck: law {p:.4}, thrown {f:.4}");
            }
        }
    }
}

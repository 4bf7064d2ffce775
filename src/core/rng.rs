//! The game's randomness: one stream per purpose, derived from the seed.
//!
//! Every generator is ChaCha8 (portable and stable across platforms and
//! crate versions) with our own sampling functions on top (`below`,
//! `unit`, `chance`, `binomial`, `shuffle`), and our own key derivation
//! from a `u64` seed (SplitMix64, not `rand_core`'s `seed_from_u64`), so
//! that the numbers a seed produces never change under a dependency
//! upgrade.
//!
//! A game does not draw from one generator. Each draw is addressed by
//! what it is for and where in the game it happens (`Streams`):
//!
//! - the key: the game's seed expanded by SplitMix64 to 32 bytes;
//! - the ChaCha stream id (64 bits, `stream_id`): the purpose (`Purpose`:
//!   tower, events, actions, specials, draft, script) in bits 56..64, then
//!   the stage of the game (`Stage`): year in 48..56, slot (season, winter or
//!   setup) in 32..48, action card + 1 in 16..32, seat + 1 in 8..16;
//! - the block position: the draw's index within its purpose and stage
//!   (the first throw of a stage is 0, the second 1, ...), times 2^32
//!   blocks.
//!
//! So a variant that draws more or fewer numbers for one purpose, or in
//! one stage, leaves every other purpose's draws, and the same purpose's
//! draws in every other stage, exactly as they were. Stream id 0 is never a
//! game stream: it is what `GameRng::seeded` gives (bots, fitting, odds).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRng(ChaCha8Rng);

/// A seed expanded to a ChaCha key by SplitMix64 (four outputs, little
/// endian): fixed here, whatever `rand_core` does.
fn key(seed: u64) -> [u8; 32] {
    let mut x = seed;
    let mut out = [0u8; 32];
    for chunk in out.chunks_exact_mut(8) {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out
}

impl GameRng {
    /// A generator of its own (bots, fitting, odds, fuzzing): stream 0 of
    /// the seed's key, which no game stream uses.
    pub fn seeded(seed: u64) -> Self {
        GameRng(ChaCha8Rng::from_seed(key(seed)))
    }

    /// Draw `index` of `purpose` at `stage` of the game with this seed (see
    /// the module's comment).
    pub fn stream(seed: u64, purpose: Purpose, stage: Stage, index: u32) -> Self {
        let mut r = ChaCha8Rng::from_seed(key(seed));
        r.set_stream(stream_id(purpose, stage));
        r.set_word_pos(u128::from(index) << 36);
        GameRng(r)
    }

    /// A uniform integer in `0..n` (unbiased; `n` must be positive).
    pub fn below(&mut self, n: u32) -> u32 {
        assert!(n > 0, "below(0)");
        // Lemire's multiply-and-reject.
        let mut m = u64::from(self.0.next_u32()) * u64::from(n);
        let mut low = m as u32;
        if low < n {
            let threshold = n.wrapping_neg() % n;
            while low < threshold {
                m = u64::from(self.0.next_u32()) * u64::from(n);
                low = m as u32;
            }
        }
        (m >> 32) as u32
    }

    /// A uniform float in `[0, 1)` with 53 bits of precision.
    pub fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p` (clamped to `[0, 1]`).
    pub fn chance(&mut self, p: f64) -> bool {
        self.draw(Chance::new(p))
    }

    /// True with the probability `c` was made with: `chance` with the
    /// comparison prepared once, for a loop that draws with the same `p`.
    #[inline]
    pub fn draw(&mut self, c: Chance) -> bool {
        if c.draws { self.0.next_u64() >> 11 < c.below } else { c.below != 0 }
    }

    /// How many of `n` independent trials succeed with probability `p`.
    pub fn binomial(&mut self, n: u32, p: f64) -> u32 {
        let c = Chance::new(p);
        (0..n).filter(|_| self.draw(c)).count() as u32
    }

    /// Fisher–Yates shuffle.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u32 + 1) as usize;
            items.swap(i, j);
        }
    }

    /// A seed for a dependent generator (bots, trials), drawn from this one.
    pub fn fork(&mut self) -> GameRng {
        GameRng::seeded(self.0.next_u64())
    }

    /// A fresh game seed drawn from this generator (a sampled world's
    /// streams: `Streams::reseed`).
    pub fn next_seed(&mut self) -> u64 {
        self.0.next_u64()
    }
}

/// A probability made ready for `GameRng::draw`, which gives what
/// `unit() < p` gives (the same draws, the same answers) with an integer
/// comparison: `unit()` is k / 2^53 for the 53 bits k of a draw, so it is
/// below p exactly when k is below ⌈p · 2^53⌉ (both products are exact:
/// scaling by a power of two). A p of 1 or more is true and a p of 0 or
/// less false without a draw, as `chance` always was; a NaN draws and is
/// false.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chance {
    draws: bool,
    below: u64,
}

impl Chance {
    pub fn new(p: f64) -> Chance {
        if p >= 1.0 {
            Chance { draws: false, below: 1 }
        } else if p <= 0.0 {
            Chance { draws: false, below: 0 }
        } else if p.is_nan() {
            Chance { draws: true, below: 0 }
        } else {
            Chance { draws: true, below: (p * (1u64 << 53) as f64).ceil() as u64 }
        }
    }
}

/// What a draw is for. Each purpose has streams of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// Tower throws (the setup's preload and every battle), a Lua tower's
    /// `random` included.
    Tower = 1,
    /// The event deck's shuffle (setup) and each round's event.
    Events = 2,
    /// The action cards' order, each round.
    Actions = 3,
    /// The special cards on the turn-order spaces, each round.
    Specials = 4,
    /// The province cards of the draft.
    Draft = 5,
    /// `game.random` in the rules' scripts (bid tie-breaks, winter revolts).
    Script = 6,
}

impl Purpose {
    pub const ALL: [Purpose; 6] = [Purpose::Tower, Purpose::Events, Purpose::Actions, Purpose::Specials, Purpose::Draft, Purpose::Script];
}

/// Where in the game a draw happens (`GameState::stage`): the setup, a
/// round (`slot` = its season), one seat's turn at one action card of a
/// round, or the winter and scoring of a year.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stage {
    pub year: u8,
    /// The season (0..), `WINTER` or `SETUP`.
    pub slot: u16,
    /// The action card (its index in the rules) + 1; 0 outside actions.
    pub action: u16,
    /// The acting seat's index + 1; 0 outside actions.
    pub seat: u8,
}

impl Stage {
    pub const WINTER: u16 = 0x100;
    pub const SETUP: u16 = 0x101;

    /// Before the first year: the draft, the preload, the event deck.
    pub fn setup() -> Stage {
        Stage { year: 0, slot: Stage::SETUP, action: 0, seat: 0 }
    }

    /// A round outside the actions: its cards, its event, the bids.
    pub fn round(year: u8, season: u8) -> Stage {
        Stage { year, slot: u16::from(season), action: 0, seat: 0 }
    }

    /// `seat`'s turn at action card `action` (its index in the rules).
    pub fn action(year: u8, season: u8, action: u8, seat: usize) -> Stage {
        Stage { year, slot: u16::from(season), action: u16::from(action) + 1, seat: seat as u8 + 1 }
    }

    /// The winter and scoring of `year`.
    pub fn winter(year: u8) -> Stage {
        Stage { year, slot: Stage::WINTER, action: 0, seat: 0 }
    }
}

/// The ChaCha stream id of a purpose at a stage (layout: the module's
/// comment).
pub fn stream_id(purpose: Purpose, stage: Stage) -> u64 {
    (purpose as u64) << 56 | u64::from(stage.year) << 48 | u64::from(stage.slot) << 32 | u64::from(stage.action) << 16 | u64::from(stage.seat) << 8
}

/// How many draws a purpose has made in the stage it last drew in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Drawn {
    pub stage: Stage,
    pub count: u32,
}

/// The game's random streams: the seed and, per purpose, how far it has
/// drawn in its current stage. Plain data: a copy of the state continues
/// exactly as the original would.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Streams {
    seed: u64,
    /// By `Purpose` (in `Purpose::ALL` order).
    drawn: [Drawn; 6],
}

impl Streams {
    pub fn new(seed: u64) -> Streams {
        Streams { seed, drawn: [Drawn::default(); 6] }
    }

    /// The generator for the next draw of `purpose` at `stage`: the first
    /// draw at a stage is index 0, the next 1, and so on. Stages never
    /// recur in a game (they follow the calendar), so no draw repeats.
    pub fn next(&mut self, purpose: Purpose, stage: Stage) -> GameRng {
        let d = &mut self.drawn[purpose as usize - 1];
        if d.stage != stage {
            *d = Drawn { stage, count: 0 };
        }
        let index = d.count;
        d.count = d.count.wrapping_add(1);
        GameRng::stream(self.seed, purpose, stage, index)
    }

    /// Forgets the seed (a seat's view: the future is hidden).
    pub fn hide(&mut self) {
        self.seed = 0;
    }

    /// Another future: the same draw counts under another seed (a sampled
    /// world).
    pub fn reseed(&mut self, seed: u64) {
        self.seed = seed;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_pinned() {
        // If these change, every transcript changes: what a seed produces
        // is part of the project's compatibility promise (ChaCha8, our key
        // derivation, stream ids and sampling; no crate's seeding).
        let mut r = GameRng::seeded(7);
        let v: Vec<u32> = (0..6).map(|_| r.below(100)).collect();
        assert_eq!(v, [31, 40, 61, 77, 89, 50]);
        let mut t = GameRng::stream(7, Purpose::Tower, Stage::action(1, 2, 3, 1), 2);
        let w: Vec<u32> = (0..6).map(|_| t.below(100)).collect();
        assert_eq!(w, [22, 87, 87, 6, 45, 42]);
        assert_eq!(stream_id(Purpose::Script, Stage::action(1, 2, 3, 1)), 0x0601_0002_0004_0200);
        assert_eq!(stream_id(Purpose::Events, Stage::setup()), 0x0200_0101_0000_0000);
    }

    #[test]
    fn a_purpose_draws_the_same_whatever_the_others_draw() {
        let round = Stage::round(0, 1);
        let mut quiet = Streams::new(11);
        let mut busy = Streams::new(11);
        for _ in 0..5 {
            busy.next(Purpose::Script, round).below(6);
            busy.next(Purpose::Tower, round).unit();
        }
        let deal = |s: &mut Streams| (0..3).map(|_| s.next(Purpose::Actions, round).below(1000)).collect::<Vec<_>>();
        assert_eq!(deal(&mut quiet), deal(&mut busy));
        // Within a purpose, draws are counted per stage: an extra draw at one
        // stage leaves the next stage's draws as they were.
        let next = Stage::action(0, 1, 4, 2);
        let mut extra = Streams::new(11);
        extra.next(Purpose::Tower, round);
        extra.next(Purpose::Tower, round);
        let mut plain = Streams::new(11);
        plain.next(Purpose::Tower, round);
        assert_eq!(extra.next(Purpose::Tower, next).below(1 << 30), plain.next(Purpose::Tower, next).below(1 << 30));
        // Draws within a stage, purposes, stages and seeds all differ.
        let mut s = Streams::new(11);
        let mut seen: Vec<u32> = (0..4).map(|_| s.next(Purpose::Tower, round).below(u32::MAX)).collect();
        seen.push(s.next(Purpose::Events, round).below(u32::MAX));
        seen.push(s.next(Purpose::Tower, next).below(u32::MAX));
        seen.push(Streams::new(12).next(Purpose::Tower, round).below(u32::MAX));
        seen.push(GameRng::seeded(11).below(u32::MAX));
        let mut unique = seen.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), seen.len(), "{seen:?}");
    }

    #[test]
    fn a_prepared_chance_draws_and_answers_as_the_comparison_of_unit() {
        // What `chance` was before `Chance`.
        fn old(r: &mut GameRng, p: f64) -> bool {
            if p >= 1.0 {
                true
            } else if p <= 0.0 {
                false
            } else {
                r.unit() < p
            }
        }
        // Every p on both sides of the 53-bit grid, the ends, and the
        // values that draw nothing.
        let mut ps = vec![0.0, -0.5, 1.0, 1.5, f64::NAN, f64::MIN_POSITIVE, 1e-300, 0.5, 0.25, 1.0 - f64::EPSILON / 2.0];
        let mut r = GameRng::seeded(5);
        for _ in 0..2000 {
            let u = r.unit();
            ps.extend([u, f64::from_bits(u.to_bits() + 1), f64::from_bits(u.to_bits().saturating_sub(1))]);
        }
        for p in ps {
            let (mut a, mut b) = (GameRng::seeded(9), GameRng::seeded(9));
            for _ in 0..50 {
                assert_eq!(old(&mut a, p), b.draw(Chance::new(p)), "p = {p:e}");
            }
            assert_eq!(a, b, "p = {p:e} drew a different number of times");
        }
        // At each draw's own edge: p exactly k / 2^53 (false: k < k fails),
        // the floats just below and above it, and the same at (k + 1) / 2^53.
        let grid = |k: u64| k as f64 / (1u64 << 53) as f64;
        let (below, above) = (|p: f64| f64::from_bits(p.to_bits().saturating_sub(1)), |p: f64| f64::from_bits(p.to_bits() + 1));
        let mut src = GameRng::seeded(13);
        for _ in 0..5000 {
            let k = src.clone().next_seed() >> 11;
            for p in [grid(k), below(grid(k)), above(grid(k)), grid(k + 1), below(grid(k + 1)), above(grid(k + 1))] {
                assert_eq!(old(&mut src.clone(), p), src.clone().draw(Chance::new(p)), "k = {k}, p = {p:e}");
            }
            src.next_seed();
        }
        // A draw at exactly a grid point: k / 2^53 < p fails at k = p·2^53.
        let mut g = GameRng::seeded(2);
        let k = g.clone().next_seed() >> 11;
        assert!(!g.clone().draw(Chance::new(k as f64 / (1u64 << 53) as f64)));
        assert!(g.draw(Chance::new((k + 1) as f64 / (1u64 << 53) as f64)));
    }

    #[test]
    fn below_is_roughly_uniform() {
        let mut r = GameRng::seeded(1);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[r.below(6) as usize] += 1;
        }
        for c in counts {
            assert!((9_400..10_600).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn shuffle_keeps_elements() {
        let mut r = GameRng::seeded(3);
        let mut v: Vec<u32> = (0..20).collect();
        r.shuffle(&mut v);
        let mut s = v.clone();
        s.sort();
        assert_eq!(s, (0..20).collect::<Vec<_>>());
        assert_ne!(v, s);
    }
}

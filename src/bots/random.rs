use super::{Bot, action_kind, feasible, feasible_anywhere};
use crate::core::*;
use crate::engine::Engine;

/// Uniform over legal choices; its plans put a random sensible province on
/// most action spaces, so its games build, collect and fight.
#[derive(Clone)]
pub struct RandomBot {
    rng: GameRng,
    /// `plan`'s working lists, kept between plans so that a plan
    /// allocates only the plan itself (their contents never outlive a plan).
    scratch: Scratch,
}

#[derive(Clone, Default)]
struct Scratch {
    free: Vec<ProvinceId>,
    order: Vec<usize>,
    fitting: Vec<usize>,
}

impl RandomBot {
    pub fn new(seed: u64) -> Self {
        RandomBot { rng: GameRng::seeded(seed), scratch: Scratch::default() }
    }
}

impl Bot for RandomBot {
    fn boxed_clone(&self) -> Box<dyn Bot> {
        Box::new(self.clone())
    }

    fn name(&self) -> &'static str {
        "random"
    }

    fn plan(&mut self, engine: &Engine, view: &SeatView, seat: Seat) -> Plan {
        let n = engine.rules.cards.actions.len();
        let mut slots = vec![None; n];
        let Scratch { mut free, mut order, mut fitting } = std::mem::take(&mut self.scratch);
        free.clear();
        free.extend(view.provinces_of(seat));
        order.clear();
        order.extend(0..n);
        self.rng.shuffle(&mut order);
        let mut chests = view.chests(seat);
        // `fitting`: the positions in `free` of the provinces that could
        // carry out the action (one pass; the buffer serves every action).
        for &a in &order {
            if free.is_empty() || self.rng.chance(0.2) {
                continue;
            }
            let kind = action_kind(engine, a);
            let k = match feasible_anywhere(engine, view, seat, a, kind, chests) {
                Some(false) => continue,
                // Every province fits: `fitting` would be 0..free.len().
                Some(true) => self.rng.below(free.len() as u32) as usize,
                None => {
                    fitting.clear();
                    fitting.extend((0..free.len()).filter(|&i| feasible(engine, view, seat, a, kind, free[i], chests)));
                    if fitting.is_empty() {
                        continue;
                    }
                    fitting[self.rng.below(fitting.len() as u32) as usize]
                }
            };
            let p = free.remove(k);
            chests -= engine.rules.cards.actions[a].cost;
            slots[a] = Some(Card::Province(p));
        }
        let most = view.chests(seat).min(2);
        let affordable = || engine.rules.rules.components.chest_cards.iter().filter(move |&&v| v <= most).map(|&v| v as u8);
        let bid = match self.rng.below(4) {
            0 => None,
            1 if !free.is_empty() => Some(Card::Province(free[self.rng.below(free.len() as u32) as usize])),
            _ => match affordable().count() {
                0 => None,
                n => affordable().nth(self.rng.below(n as u32) as usize).map(Card::Chest),
            },
        };
        self.scratch = Scratch { free, order, fitting };
        let mut plan = Plan { slots, bid };
        super::comply(engine, view, seat, &mut plan, super::Forbid::default());
        plan
    }

    fn choose(&mut self, engine: &Engine, _view: &SeatView, _seat: Seat, kind: &str, options: &[Choice]) -> Choice {
        // The extra cubes the cards allow from its supply: all of them (the
        // one rule it follows, so that it throws them as it did when the
        // rules threw them without asking).
        if engine.rules.bots.asked(kind) == Some(crate::rules::Asked::ExtraCubes) {
            return *options.iter().max().unwrap();
        }
        options[self.rng.below(options.len() as u32) as usize]
    }
}
